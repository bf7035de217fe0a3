/**
 * Who a key says the caller is, below every part that reads it: the claims of an API key
 * (`claims.ts`: their schema, the `Identity` they give, plan names, what a header can carry).
 * `auth/` verifies keys into identities; `events/`, `ratelimit/` and the admin API only read them.
 */
export { API_KEY_TYP, ApiKeyClaims, CustomLimits, headerUnsafeClaim, identityOf, isHeaderSafe, PlanName, type Identity } from './claims.js';
