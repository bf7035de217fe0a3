import { publishKeyCacheLookup } from '../events/index.js';
import { headerUnsafeClaim, identityOf, type Identity } from '../identity/index.js';
import { InvalidKeyError, KeySourceUnavailableError } from './key-crypto.js';
import type { KeyVerifier } from './key-verifier.js';
import { RevocationsUnavailableError, type RevocationList } from './revocations.js';
import { VerifiedKeyCache } from './verified-key-cache.js';

export type AuthOutcome =
  /** `verified`: its signature was checked for this request (it was not in the cache of verified keys). */
  | { readonly kind: 'authenticated'; readonly identity: Identity; readonly verified: boolean }
  /**
   * 401. `tokenSent` decides between `Bearer` and `Bearer error="invalid_token"`; `message`, when
   * set, tells the client more than the generic one (a key no gateway can pass on, say).
   */
  | { readonly kind: 'rejected'; readonly tokenSent: boolean; readonly reason: string; readonly keyId?: string; readonly message?: string }
  /** 503: the key server or the deny-list could not be asked; the key may well be valid. */
  | { readonly kind: 'unavailable'; readonly reason: string };

/** A bearer token read from `Authorization`, or why there is none. */
export type Bearer = { readonly kind: 'token'; readonly token: string } | Extract<AuthOutcome, { kind: 'rejected' }>;

/** What the cache of verified keys knows of a token: its identity, or the lookup to verify it against. */
export interface Known {
  readonly identity: Identity | undefined;
  readonly digest: string;
  /** The cache of the key set the lookup ran against: a verification for an older set is not kept. */
  readonly cache: VerifiedKeyCache;
}

export interface AuthenticatorOptions {
  readonly verifier: KeyVerifier;
  readonly revocations: RevocationList;
  /** How many verified keys to remember (0 verifies every request). */
  readonly cacheSize: number;
  readonly now: () => number;
}

/**
 * The key check in its parts, so the request path can put its guard between them: `read` the
 * header, ask whether the key is `known` (a hash and a map lookup), `verify` a key that is not
 * (a signature check), and check whether the identity is `revoked` (every time). Called as a
 * function, it runs the four in order, for callers with no guard to put between them.
 */
export interface Authenticator {
  (authorization: string | undefined): Promise<AuthOutcome>;
  read(authorization: string | undefined): Bearer;
  known(token: string): Known;
  verify(token: string, known: Known): Promise<AuthOutcome>;
  revoked(identity: Identity, verified: boolean): Promise<AuthOutcome>;
}

/** Why a key whose identity cannot travel in a header is refused: never dispatched, never charged. */
function uncarriable(claim: 'sub' | 'jti'): { reason: string; message: string } {
  const name = claim === 'sub' ? 'subject' : 'id';
  return {
    reason: `${claim} holds characters a header cannot carry`,
    message: `This API key's ${name} (${claim}) holds characters an HTTP header cannot carry (only visible ASCII and inner spaces can): the gateway cannot pass it on.`,
  };
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_TOKEN_LENGTH = 4096;

/** Checks `Authorization: Bearer <API key>`: a key seen before costs a hash and a map lookup. */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  let cache = new VerifiedKeyCache(options.cacheSize, options.now);
  let keysVersion = options.verifier.version();

  function read(authorization: string | undefined): Bearer {
    if (authorization === undefined || authorization === '') return { kind: 'rejected', tokenSent: false, reason: 'no Authorization header' };
    const space = authorization.indexOf(' ');
    if (space === -1 || authorization.slice(0, space).toLowerCase() !== 'bearer') {
      return { kind: 'rejected', tokenSent: false, reason: 'not the Bearer scheme' };
    }
    const token = authorization.slice(space + 1).trim();
    if (token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) return { kind: 'rejected', tokenSent: true, reason: 'not a compact JWS' };
    return { kind: 'token', token };
  }

  function known(token: string): Known {
    // A changed key set (a kid added or removed) invalidates every earlier verification.
    const version = options.verifier.version();
    if (version !== keysVersion) {
      cache = new VerifiedKeyCache(options.cacheSize, options.now);
      keysVersion = version;
    }
    const digest = VerifiedKeyCache.digest(token);
    const identity = cache.get(digest);
    if (publishKeyCacheLookup.active) publishKeyCacheLookup({ result: identity === undefined ? 'miss' : 'hit' });
    return { identity, digest, cache };
  }

  async function verify(token: string, lookup: Known): Promise<AuthOutcome> {
    let identity: Identity | undefined;
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
    // Checked once per key, here: a refused key is never cached, an accepted one never checked again.
    const unsafe = headerUnsafeClaim(identity);
    if (unsafe !== undefined) return { kind: 'rejected', tokenSent: true, ...uncarriable(unsafe) };
    // If the key set changed meanwhile, the result belongs to the old set: do not remember it.
    if (lookup.cache === cache) cache.set(lookup.digest, identity);
    return { kind: 'authenticated', identity, verified: true };
  }

  async function revoked(identity: Identity, verified: boolean): Promise<AuthOutcome> {
    let isRevoked: boolean;
    try {
      isRevoked = await options.revocations.isRevoked(identity.keyId);
    } catch (error) {
      if (error instanceof RevocationsUnavailableError) return { kind: 'unavailable', reason: `revocations: ${String(error.cause)}` };
      throw error;
    }
    if (isRevoked) return { kind: 'rejected', tokenSent: true, reason: 'revoked', keyId: identity.keyId };
    return { kind: 'authenticated', identity, verified };
  }

  async function authenticate(authorization: string | undefined): Promise<AuthOutcome> {
    const bearer = read(authorization);
    if (bearer.kind !== 'token') return bearer;
    const lookup = known(bearer.token);
    if (lookup.identity !== undefined) return revoked(lookup.identity, false);
    const outcome = await verify(bearer.token, lookup);
    return outcome.kind === 'authenticated' ? revoked(outcome.identity, true) : outcome;
  }
  return Object.assign(authenticate, { read, known, verify, revoked });
}
