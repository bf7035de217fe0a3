import { KeyringError, keyringPaths } from './keyring-files.js';
import { issuedKey, readRevoked, readState, type IssuedKey } from './keyring-state.js';
import { dateText, issueKey, revokeKey } from './keyring.js';

export interface RerollOptions {
  /** How long the old key keeps working (0: it is refused at once). */
  readonly graceMs: number;
  /** The new key's lifetime; the old key's when absent. */
  readonly ttlMs?: number | undefined;
  /** Reroll a key that is revoked (or already refused from a later date) all the same. */
  readonly force?: boolean | undefined;
  readonly now?: number;
}

/** What a reroll did: the new key, when the old one is refused, and its earlier revocation if it had one. */
export interface Rerolled {
  readonly token: string;
  readonly record: IssuedKey;
  readonly refusedFrom: string;
  /** The date the old key was already refused from (a `--force` reroll of a revoked key). */
  readonly revokedBefore: string | undefined;
}

/**
 * Rerolls `jti` (Unkey's `rerollKey`): a new key for the same account, plan and signed limits,
 * valid as long as the old one was (or `ttlMs`), and the old key refused from `graceMs` from now
 * (0: at once) through the deny-list file, dated then. Keys are JWTs, whose expiry cannot change
 * once issued: the deny-list's date is what ends the old one, at no cost per request.
 *
 * Everything is checked before anything is written: both dates, the deny-list, and that the old
 * key is not revoked already (a reroll would give its account a working key again: only with
 * `force`). A refused reroll leaves the keyring as it was.
 */
export async function rerollKey(dir: string, jti: string, options: RerollOptions): Promise<Rerolled> {
  const now = options.now ?? Date.now();
  const old = issuedKey(readState(dir), jti, 'nothing was rerolled');
  const lifetime = old.expiresAt === undefined ? undefined : Date.parse(old.expiresAt) - Date.parse(old.issuedAt);
  const ttlMs = options.ttlMs ?? lifetime;
  if (ttlMs !== undefined) dateText(now + ttlMs, 'the new key’s expiry (--ttl)');
  dateText(now + options.graceMs, 'the end of the grace period (--grace)');
  const denied = readRevoked(keyringPaths(dir).revoked).revoked;
  const revokedBefore = Object.hasOwn(denied, jti) ? denied[jti] : undefined;
  if (revokedBefore !== undefined && options.force !== true) {
    const when = Date.parse(revokedBefore) > now ? `is refused from ${revokedBefore} (rerolled before?)` : `was revoked on ${revokedBefore}`;
    throw new KeyringError(`${jti} ${when}: a reroll would give account ${old.sub} a working key again; add --force if that is meant`);
  }
  const { token, record } = await issueKey(dir, { plan: old.plan, sub: old.sub, limits: old.limits, ttlMs, now, replaces: jti });
  const { revokedAt } = revokeKey(dir, jti, now, now + options.graceMs);
  return { token, record, refusedFrom: revokedAt, revokedBefore };
}
