import { publishKeyCacheLookup } from '../events/index.js';
import { identityOf, type Identity } from './claims.js';
import { InvalidKeyError, KeySourceUnavailableError } from './key-crypto.js';
import type { KeyVerifier } from './key-verifier.js';
import { RevocationsUnavailableError, type RevocationList } from './revocations.js';
import { VerifiedKeyCache } from './verified-key-cache.js';

export type AuthOutcome =
  /** `verified`: its signature was checked for this request (it was not in the cache of verified keys). */
  | { readonly kind: 'authenticated'; readonly identity: Identity; readonly verified: boolean }
  /** 401. `tokenSent` decides between `Bearer` and `Bearer error="invalid_token"`. */
  | { readonly kind: 'rejected'; readonly tokenSent: boolean; readonly reason: string; readonly keyId?: string }
  /** 503: the key server or the deny-list could not be asked; the key may well be valid. */
  | { readonly kind: 'unavailable'; readonly reason: string }
  /** The key is unknown and its signature would need checking, which `mayVerify` refused. */
  | { readonly kind: 'throttled' };

export interface AuthenticatorOptions {
  readonly verifier: KeyVerifier;
  readonly revocations: RevocationList;
  /** How many verified keys to remember (0 verifies every request). */
  readonly cacheSize: number;
  readonly now: () => number;
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_TOKEN_LENGTH = 4096;

/**
 * Checks `Authorization: Bearer <API key>`. A key seen before costs a hash and a map lookup (its
 * signature was checked then); its revocation is checked every time. A key not seen before is
 * verified only if `mayVerify` (when given) allows it: the caller's guard against key guessing.
 */
export function createAuthenticator(options: AuthenticatorOptions) {
  let cache = new VerifiedKeyCache(options.cacheSize, options.now);
  let keysVersion = options.verifier.version();

  return async function authenticate(authorization: string | undefined, mayVerify?: () => boolean): Promise<AuthOutcome> {
    if (authorization === undefined || authorization === '') return { kind: 'rejected', tokenSent: false, reason: 'no Authorization header' };
    const space = authorization.indexOf(' ');
    if (space === -1 || authorization.slice(0, space).toLowerCase() !== 'bearer') {
      return { kind: 'rejected', tokenSent: false, reason: 'not the Bearer scheme' };
    }
    const token = authorization.slice(space + 1).trim();
    if (token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) return { kind: 'rejected', tokenSent: true, reason: 'not a compact JWS' };

    // A changed key set (a kid added or removed) invalidates every earlier verification.
    const version = options.verifier.version();
    if (version !== keysVersion) {
      cache = new VerifiedKeyCache(options.cacheSize, options.now);
      keysVersion = version;
    }
    const digest = VerifiedKeyCache.digest(token);
    const verifiedIn = cache; // the cache of the key set this verification runs against
    let identity = verifiedIn.get(digest);
    const verified = identity === undefined;
    publishKeyCacheLookup({ result: identity === undefined ? 'miss' : 'hit' });
    if (identity === undefined) {
      if (mayVerify !== undefined && !mayVerify()) return { kind: 'throttled' };
      try {
        identity = identityOf(await options.verifier.verify(token));
      } catch (error) {
        if (error instanceof KeySourceUnavailableError) return { kind: 'unavailable', reason: String(error.cause) };
        if (error instanceof InvalidKeyError) {
          return { kind: 'rejected', tokenSent: true, reason: error.reason, ...(error.keyId === undefined ? {} : { keyId: error.keyId }) };
        }
        throw error;
      }
      if (identity === undefined) return { kind: 'rejected', tokenSent: true, reason: 'claims are not those of an API key (plan?)' };
      // If the key set changed meanwhile, the result belongs to the old set: do not remember it.
      if (verifiedIn === cache) cache.set(digest, identity);
    }
    let revoked: boolean;
    try {
      revoked = await options.revocations.isRevoked(identity.keyId);
    } catch (error) {
      if (error instanceof RevocationsUnavailableError) return { kind: 'unavailable', reason: `revocations: ${String(error.cause)}` };
      throw error;
    }
    if (revoked) return { kind: 'rejected', tokenSent: true, reason: 'revoked', keyId: identity.keyId };
    return { kind: 'authenticated', identity, verified };
  };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;
