export { createAuthenticator, type Authenticator, type AuthenticatorOptions, type AuthOutcome, type Bearer, type Known } from './authenticator.js';
export { API_KEY_TYP, headerUnsafeClaim, identityOf, isHeaderSafe, type CustomLimits, type Identity } from '../identity/index.js';
export {
  generateSigningKey,
  isJwtShaped,
  signApiKey,
  InvalidKeyError,
  KeySourceUnavailableError,
  type ApiKeyToSign,
  type JSONWebKeySet,
  type JWK,
  type KeySource,
  type VerifyOptions,
} from './key-crypto.js';
export { createFileKeyVerifier, createFixedKeyVerifier, type KeyVerifier } from './key-verifier.js';
export { anyOfRevocations, createFileRevocations, NO_REVOCATIONS, RevocationsUnavailableError, type RevocationList } from './revocations.js';
export { createRedisRevocations, type RedisRevocations } from './redis-revocations.js';
export { CONFIRM_WAIT_MS, createRedisRevoker, type RevokedInRedis } from './revoke-in-redis.js';
export { addToDenyList, ensureDenyList, readDenyList, type RevocationFile } from './deny-list-file.js';
export { VerifiedKeyCache } from './verified-key-cache.js';
