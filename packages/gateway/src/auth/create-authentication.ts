import type { AuthConfig } from '../config/index.js';
import type { RedisClient } from '../redis/index.js';
import { redisKeyNames } from '../redis/index.js';
import { createAuthenticator, type Authenticate } from './authenticator.js';
import type { JSONWebKeySet, VerifyOptions } from './key-crypto.js';
import { createFileKeyVerifier, createFixedKeyVerifier } from './key-verifier.js';
import { createFileRevocations, createRedisRevocations, NO_REVOCATIONS, type RevocationList } from './revocations.js';

export interface AuthenticationDeps {
  readonly now: () => number;
  /** When set, revocations are shared through it (and the file, if any, is ignored). */
  readonly redis?: { readonly client: RedisClient; readonly prefix: string } | undefined;
  readonly onDegraded?: (error: unknown) => void;
}

/** The authenticator the configuration describes, or `undefined` with AUTH=off. */
export function createAuthentication(config: AuthConfig, deps: AuthenticationDeps): { authenticate: Authenticate; close(): void } | undefined {
  if (config.mode === 'off') return undefined;
  const options: VerifyOptions = {
    issuer: config.issuer,
    audience: config.audience,
    algorithms: config.algorithms,
    clockToleranceSeconds: config.clockToleranceSeconds,
    now: deps.now,
  };
  const { keys } = config;
  const verifier =
    keys.kind === 'file'
      ? createFileKeyVerifier(keys.path, options, deps.now)
      : createFixedKeyVerifier(keys.kind === 'inline' ? { kind: 'jwks', jwks: keys.jwks as unknown as JSONWebKeySet } : keys, options, deps.now);
  let revocations: RevocationList = NO_REVOCATIONS;
  if (deps.redis !== undefined) {
    revocations = createRedisRevocations(deps.redis.client, { key: redisKeyNames(deps.redis.prefix).revoked, onDegraded: deps.onDegraded });
  } else if (config.revocationsFile !== undefined) {
    revocations = createFileRevocations(config.revocationsFile);
  }
  const authenticate = createAuthenticator({ verifier, revocations, cacheSize: config.cacheSize, now: deps.now });
  return { authenticate, close: () => revocations.close() };
}
