import { readFileSync } from 'node:fs';
import { watchFile } from '../sources/watched-file.js';
import { createKeyVerifier, type JSONWebKeySet, type KeySource, type VerifyOptions } from './key-crypto.js';

/** Verifies tokens against a key set that may change while the gateway runs (rotation). */
export interface KeyVerifier {
  verify(token: string): Promise<unknown>;
  /** Changes whenever the key set changes: identities verified before must be verified again. */
  version(): number;
}

/**
 * Key sets given inline (the `JWKS` variable: fixed) or fetched from a URL. A remote set may lose a
 * kid at any refresh, so verifications are forgotten once per refresh age (`cacheMaxAgeMs`): a key
 * of a retired kid stops working within that time, as the set jose holds does.
 */
export function createFixedKeyVerifier(source: KeySource, options: VerifyOptions, now: () => number = Date.now): KeyVerifier {
  const verify = createKeyVerifier(source, options);
  if (source.kind !== 'remote') return { verify, version: () => 0 };
  return { verify, version: () => Math.floor(now() / source.cacheMaxAgeMs) };
}

/**
 * Key sets from a JWKS file, re-read when the file changes (checked at most every `checkEveryMs`),
 * so adding a `kid` (rotation) or removing one takes effect without a restart.
 */
export function createFileKeyVerifier(file: string, options: VerifyOptions, now: () => number, checkEveryMs = 1000): KeyVerifier {
  const readKeySet = (path: string) => {
    const jwks = JSON.parse(readFileSync(path, 'utf8')) as JSONWebKeySet;
    if (!Array.isArray(jwks.keys)) throw new Error(`${path} is not a JWKS (no "keys" array)`);
    return createKeyVerifier({ kind: 'jwks', jwks }, options);
  };
  let watched;
  try {
    watched = watchFile(file, readKeySet, { setting: 'JWKS_FILE', minIntervalMs: checkEveryMs, now });
  } catch (error) {
    throw new Error(`JWKS_FILE ${file} cannot be read as a key set: ${(error as Error).message}`);
  }
  const keySet = watched;
  // A half-written or removed file keeps the last good key set; the next check tries again.
  return { verify: (token) => keySet.current()(token), version: () => keySet.version() };
}
