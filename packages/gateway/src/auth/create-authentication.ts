import type { AuthConfig } from '../config/index.js';
import type { RedisClient } from '../redis/index.js';
import { redisKeyNames } from '../redis/index.js';
import { createAuthenticator, type Authenticate } from './authenticator.js';
import type { JSONWebKeySet, VerifyOptions } from './key-crypto.js';
import { createFileKeyVerifier, createFixedKeyVerifier } from './key-verifier.js';
import { anyOfRevocations, createFileRevocations, createRedisRevocations, type RevocationList } from './revocations.js';

export interface AuthenticationDeps {
  readonly now: () => number;
  /** When set, revocations are shared through it too (beside the file, if any). */
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
  const lists: RevocationList[] = [];
  if (config.revocationsFile !== undefined) lists.push(createFileRevocations(config.revocationsFile));
  if (deps.redis !== undefined) {
    lists.push(createRedisRevocations(deps.redis.client, { key: redisKeyNames(deps.redis.prefix).revoked, onDegraded: deps.onDegraded }));
  }
  const revocations = anyOfRevocations(lists);
  const authenticate = createAuthenticator({ verifier, revocations, cacheSize: config.cacheSize, now: deps.now });
  return { authenticate, close: () => revocations.close() };
}
