import { addToDenyList, createRedisRevoker, readDenyList } from '../auth/index.js';
import { redisFailure, redisKeyNames, type RedisClient } from '../redis/index.js';
import { AdminError } from './admin-errors.js';
import type { Revoked } from './admin-routes.js';

export interface RevokerOptions {
  /** `AUTH=required`: keys are checked, so a revocation means something. */
  readonly keysChecked: boolean;
  /** The deny-list file revocations are written to (`ADMIN_REVOCATIONS_FILE`, else `REVOCATIONS_FILE`). */
  readonly file: string | undefined;
  /** Every deny-list file the gateway reads, that one among them: what says whether a key is revoked. */
  readonly readFiles: readonly string[];
  /** The shared deny-list, with `REDIS_URL` (`cluster`: `REDIS_CLUSTER`). */
  readonly redis?: { readonly client: RedisClient; readonly prefix: string; readonly cluster: boolean } | undefined;
  readonly now: () => number;
}

/**
 * The Redis side of revocations, one per client and prefix: it keeps one subscription to the
 * gateways' confirmations, however many revokers the settings' reloads make.
 */
const IN_REDIS = new WeakMap<RedisClient, Map<string, ReturnType<typeof createRedisRevoker>>>();
function inRedisOf(redis: NonNullable<RevokerOptions['redis']>): ReturnType<typeof createRedisRevoker> {
  const byPrefix = IN_REDIS.get(redis.client) ?? new Map<string, ReturnType<typeof createRedisRevoker>>();
  IN_REDIS.set(redis.client, byPrefix);
  const key = `${redis.prefix}\u0000${redis.cluster}`;
  let found = byPrefix.get(key);
  if (found === undefined) byPrefix.set(key, (found = createRedisRevoker(redis.client, redis.prefix, { cluster: redis.cluster })));
  return found;
}

/**
 * Revocation from the admin API, as `keys revoke` does it (no signing key is needed): the key goes
 * into the deny-list file first, which survives Redis restarting empty and which every worker and
 * instance reading it checks from the next request; then into Redis's deny-list, published, so
 * every instance that shares it refuses the key from its next request too, and learns it in its
 * copy at once (`createRedisRevoker`: answered once every gateway process told says its copy has it). Either failing is an `AdminError` naming what was done and what was not.
 */
export function createRevoker(options: RevokerOptions) {
  const names = options.redis === undefined ? undefined : redisKeyNames(options.redis.prefix);

  async function revoke(keyId: string): Promise<Revoked> {
    if (!options.keysChecked) throw new AdminError('revocations_off', 'Keys are not checked (AUTH=off): there is nothing to revoke.');
    const file = options.file;
    if (file === undefined) {
      throw new AdminError(
        'revocations_off',
        'This gateway reads no deny-list file (REVOCATIONS_FILE), and a revocation kept only in Redis would not survive Redis restarting: set ADMIN_REVOCATIONS_FILE, or revoke with npm run keys -- revoke.',
      );
    }
    let revoked: Revoked;
    try {
      const { refusedFrom, already } = addToDenyList(file, keyId, options.now());
      revoked = { refusedFrom, already };
    } catch (error) {
      throw new AdminError('revocation_failed', `The deny-list file ${file} could not be written (${(error as Error).message}): nothing was revoked.`);
    }
    const { redis } = options;
    if (redis === undefined || names === undefined) return revoked;
    // A key still in its grace period is refused from now: past its date, Redis's deny-list holds it.
    if (Date.parse(revoked.refusedFrom) > options.now()) return revoked;
    try {
      // Every instance's copy of the deny-list learns it now (a Redis that dies right after cannot
      // take it along), and the answer waits until every gateway process told says so.
      await inRedisOf(redis)(keyId);
    } catch (error) {
      throw new AdminError(
        'revocation_failed',
        `Revoked in ${file}, but not in Redis (${redisFailure(error)}): instances that read only Redis still accept the key; revoke it again once Redis answers.`,
      );
    }
    return revoked;
  }

  /**
   * Of `keyIds`, those a deny-list names, with when each is refused from (ms): the earliest date
   * the files and Redis's pending revocations give, or 0 (refused, since a date none gives) for a
   * key in Redis's set alone.
   */
  async function revocations(keyIds: readonly string[]): Promise<ReadonlyMap<string, number>> {
    const found = new Map<string, number>();
    const note = (keyId: string, from: number) => found.set(keyId, Math.min(from, found.get(keyId) ?? Infinity));
    for (const file of options.readFiles) {
      let entries: Map<string, number>;
      try {
        entries = readDenyList(file);
      } catch {
        continue;
      }
      for (const keyId of keyIds) {
        const from = entries.get(keyId);
        if (from !== undefined) note(keyId, from);
      }
    }
    const { redis } = options;
    if (redis === undefined || names === undefined || keyIds.length === 0) return found;
    try {
      const [inSet, later] = await Promise.all([redis.client.sMisMember(names.revoked, keyIds), redis.client.hGetAll(names.revokedLater)]);
      const at = options.now();
      keyIds.forEach((keyId, i) => {
        const pending = later[keyId];
        if (pending !== undefined) note(keyId, Number(pending) || 0);
        // In the set, it is refused now, since a date no deny-list gives (0).
        const known = found.get(keyId);
        if (inSet[i] === true && (known === undefined || known > at)) found.set(keyId, 0);
      });
    } catch {
      // What the files say is said; Redis's part is missing while it does not answer.
    }
    return found;
  }

  return { revoke, revocations };
}
