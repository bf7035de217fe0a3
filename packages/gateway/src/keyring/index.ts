/**
 * The operator's keyring (`npm run keys`): `keyring.ts` makes it and signs, revokes, lists,
 * rotates and retires; `keyring-state.ts` says what its files hold; `reroll-key.ts` replaces a key;
 * `verified-key-id.ts` checks a key given whole; `parse-duration.ts` reads `90d`.
 */
export { initKeyring, issueKey, keyringFiles, KeyringError, listKeys, retireKey, revokeKey, rotateKey, type IssueRequest, type KeyStopped } from './keyring.js';
export { type IssuedKey } from './keyring-state.js';
export { rerollKey, type Rerolled, type RerollOptions } from './reroll-key.js';
export { verifiedKeyIdOf } from './verified-key-id.js';
export { MAX_DURATION, parseDuration } from './parse-duration.js';
