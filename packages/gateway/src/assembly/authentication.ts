import type { AuthConfig } from '../config/index.js';
import { createAuthenticator, type Authenticator } from '../auth/authenticator.js';
import type { JSONWebKeySet, VerifyOptions } from '../auth/key-crypto.js';
import { createFileKeyVerifier, createFixedKeyVerifier } from '../auth/key-verifier.js';
import { anyOfRevocations, createFileRevocations, type RevocationList } from '../auth/revocations.js';

export interface AuthenticationDeps {
  readonly now: () => number;
  /**
   * The Redis deny-list, asked beside the file (if any). Left out when the shared limiter asks
   * it in the limit's own round trip instead.
   */
  readonly redisRevocations?: RevocationList | undefined;
  /** The deny-list file the admin API writes (`ADMIN_REVOCATIONS_FILE`), read beside the others when it is another file. */
  readonly adminRevocationsFile?: string | undefined;
}

/** The authenticator the configuration describes, or `undefined` with AUTH=off. */
export function createAuthentication(config: AuthConfig, deps: AuthenticationDeps): { authenticate: Authenticator; close(): void } | undefined {
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
  if (config.revocationsFile !== undefined) lists.push(createFileRevocations(config.revocationsFile, deps.now));
  const adminFile = deps.adminRevocationsFile;
  if (adminFile !== undefined && adminFile !== config.revocationsFile) lists.push(createFileRevocations(adminFile, deps.now, 'ADMIN_REVOCATIONS_FILE'));
  if (deps.redisRevocations !== undefined) lists.push(deps.redisRevocations);
  const revocations = anyOfRevocations(lists);
  const authenticate = createAuthenticator({ verifier, revocations, cacheSize: config.cacheSize, now: deps.now });
  return { authenticate, close: () => revocations.close() };
}
