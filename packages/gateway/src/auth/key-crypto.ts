import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  errors,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  type JSONWebKeySet,
  type JWK,
  type JWTVerifyGetKey,
} from 'jose';
import { API_KEY_TYP } from '../identity/index.js';

// The one home of jose in this project: key sets, verification, signing, key generation.

/** Where verification keys come from. */
export type KeySource =
  | { readonly kind: 'jwks'; readonly jwks: JSONWebKeySet }
  | { readonly kind: 'remote'; readonly url: URL; readonly timeoutMs: number; readonly cooldownMs: number; readonly cacheMaxAgeMs: number };

export interface VerifyOptions {
  readonly issuer: string;
  readonly audience: string;
  /** Asymmetric algorithms only; `none` and HMAC never verify. */
  readonly algorithms: readonly string[];
  readonly clockToleranceSeconds: number;
  readonly now?: () => number;
}

/** The key server could not be asked (down, slow, garbage): not the caller's fault. */
export class KeySourceUnavailableError extends Error {
  constructor(cause: unknown) {
    super('the key server is unavailable', { cause });
    this.name = 'KeySourceUnavailableError';
  }
}

/**
 * The token is not a valid API key; `reason` is for logs, never for the client. `keyId`: the key's
 * `jti` when its signature was good and only its claims failed (expired, say), for the log line.
 */
export class InvalidKeyError extends Error {
  constructor(
    readonly reason: string,
    readonly keyId?: string,
  ) {
    super(reason);
    this.name = 'InvalidKeyError';
  }
}

/** jose codes that mean "the key server failed", not "the token is bad". */
const UNAVAILABLE = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID']);
/** Fetching a remote set also fails with the generic code: not 200, or not JSON. */
const REMOTE_UNAVAILABLE = new Set([...UNAVAILABLE, 'ERR_JOSE_GENERIC']);

/**
 * A function that verifies a compact JWS as an API key and resolves with its payload. Throws
 * InvalidKeyError for anything wrong with the token, KeySourceUnavailableError when the keys
 * could not be fetched.
 */
export function createKeyVerifier(source: KeySource, options: VerifyOptions): (token: string) => Promise<unknown> {
  const keys: JWTVerifyGetKey =
    source.kind === 'jwks'
      ? createLocalJWKSet(source.jwks)
      : createRemoteJWKSet(source.url, {
          timeoutDuration: source.timeoutMs,
          cooldownDuration: source.cooldownMs,
          cacheMaxAge: source.cacheMaxAgeMs,
        });
  const now = options.now;
  const unavailable = source.kind === 'remote' ? REMOTE_UNAVAILABLE : UNAVAILABLE;
  return async function verifyKey(token) {
    try {
      const { payload } = await jwtVerify(token, keys, {
        algorithms: [...options.algorithms],
        issuer: options.issuer,
        audience: options.audience,
        typ: API_KEY_TYP,
        requiredClaims: ['iss', 'aud', 'sub', 'jti', 'iat', 'plan'],
        clockTolerance: options.clockToleranceSeconds,
        ...(now === undefined ? {} : { currentDate: new Date(now()) }),
      });
      return payload;
    } catch (error) {
      if (error instanceof errors.JOSEError) {
        if (unavailable.has(error.code)) throw new KeySourceUnavailableError(error);
        // Claims are checked only once the signature was good: their `jti` is the key's own.
        const jti = error instanceof errors.JWTClaimValidationFailed || error instanceof errors.JWTExpired ? error.payload.jti : undefined;
        throw new InvalidKeyError(`${error.code}: ${error.message}`, typeof jti === 'string' ? jti : undefined);
      }
      // Anything else comes from fetching the remote key set (refused, reset, not JSON).
      throw new KeySourceUnavailableError(error);
    }
  };
}

/**
 * Whether `text` is shaped as a JWT (its parts decode), which says nothing of whether it is valid:
 * the keys CLI tells "this is no key at all" (a usage error) from "this key does not verify".
 */
export function isJwtShaped(text: string): boolean {
  try {
    decodeJwt(text);
    return true;
  } catch {
    return false;
  }
}

/** A new Ed25519 signing key: the private JWK (keep secret) and the public one, both with `kid`. */
export async function generateSigningKey(): Promise<{ privateJwk: JWK; publicJwk: JWK }> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const common = { kid, alg: 'EdDSA', use: 'sig' };
  return { privateJwk: { ...(await exportJWK(privateKey)), ...common }, publicJwk: { ...publicJwk, ...common } };
}

export interface ApiKeyToSign {
  readonly issuer: string;
  readonly audience: string;
  readonly subject: string;
  readonly keyId: string;
  readonly plan: string;
  readonly issuedAt: number;
  readonly expiresAt?: number | undefined;
  readonly limits?: { minute?: number | undefined; day?: number | undefined } | undefined;
}

/** Signs an API key (compact JWS, `typ: apikey+jwt`) with a private JWK made by generateSigningKey. */
export async function signApiKey(privateJwk: JWK, key: ApiKeyToSign): Promise<string> {
  const alg = privateJwk.alg ?? 'EdDSA';
  const signingKey = await importJWK(privateJwk, alg);
  const claims: Record<string, unknown> = { plan: key.plan };
  if (key.limits !== undefined) claims.limits = key.limits;
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg, typ: API_KEY_TYP, ...(privateJwk.kid === undefined ? {} : { kid: privateJwk.kid }) })
    .setIssuer(key.issuer)
    .setAudience(key.audience)
    .setSubject(key.subject)
    .setJti(key.keyId)
    .setIssuedAt(Math.floor(key.issuedAt / 1000));
  if (key.expiresAt !== undefined) jwt.setExpirationTime(Math.floor(key.expiresAt / 1000));
  return jwt.sign(signingKey);
}

export type { JSONWebKeySet, JWK };
