// The gateway's face for the rest of the repository (`@animal-store/gateway`): what the bench,
// the scripts, the client's type generator and the repository tests use. The gateway itself is a
// process (`@animal-store/gateway/main`); nothing here is needed to run it.
export { API_KEY_TYP, generateSigningKey, signApiKey, type ApiKeyToSign, type JWK } from './auth/index.js';
export { GATEWAY_ENV_NAMES } from './config/index.js';
export { DEFAULT_PLANS_FILE } from './config/limits-env.js';
export { ERRORS } from './errors.js';
export { initKeyring, issueKey, keyringFiles } from './keyring/index.js';
export { buildEffectiveDocument } from './openapi/index.js';
export { readPlansFile } from './plans/index.js';
export { createMemoryLimiter, createRedisLimiter, minuteAndDay, monthWindow, type LimitRequest, type Policy, type RateDecision } from './ratelimit/index.js';
export { hostLimits } from './ratelimit/primary/index.js';
export { createRedisClient } from './redis/index.js';
