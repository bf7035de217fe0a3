import type { RedisClient } from '../redis/index.js';

export interface PendingRevocationsOptions {
  /** The deny-list set (`revoked`), where a key goes when its date comes. */
  readonly key: string;
  /** The hash of keys refused only from a date (`revokedLater`): `jti` → ms since the epoch. */
  readonly later: string;
  /** Where each revocation is published, so that every copy of the deny-list learns it at once. */
  readonly channel?: string | undefined;
  readonly now?: () => number;
  /** A key whose date came and that was moved into the deny-list. */
  readonly onRevoked: (keyId: string) => void;
}

/** Longest a timer can wait (about 24.8 days): a later date is looked at again by a refresh first. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The keys of the Redis deny-list that are refused only from a date: a rerolled key's grace
 * period (`keys reroll --grace`, which writes them in the `revokedLater` hash: a JWT's expiry
 * cannot change once issued). Read with every refresh of the deny-list's copy; a key whose date
 * has come is moved into the deny-list by the first gateway to see it (`SADD` is idempotent, the
 * others find it there), published, and dropped from the hash; a timer is set for the next date,
 * so the move happens on time, not at the next refresh. Nothing of this is on the request path.
 */
export function createPendingRevocations(redis: RedisClient, options: PendingRevocationsOptions) {
  const now = options.now ?? Date.now;
  let pending = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;

  async function revoke(keyId: string): Promise<void> {
    await redis.sAdd(options.key, keyId);
    if (options.channel !== undefined) await redis.publish(options.channel, keyId);
    await redis.hDel(options.later, [keyId]);
    options.onRevoked(keyId);
  }

  /** Reads the hash, moves the keys whose date came, and sets the timer for the next one. Never rejects. */
  async function refresh(): Promise<void> {
    let read: Record<string, string>;
    try {
      read = await redis.hGetAll(options.later);
    } catch {
      return;
    }
    const at = now();
    const next = new Map<string, number>();
    for (const [keyId, date] of Object.entries(read)) next.set(keyId, Number(date) || 0);
    pending = next;
    let soonest = Infinity;
    const due: string[] = [];
    for (const [keyId, from] of next) {
      if (from <= at) due.push(keyId);
      else soonest = Math.min(soonest, from);
    }
    // A failure leaves the key in the hash: the next refresh moves it.
    await Promise.all(due.map((keyId) => revoke(keyId).catch(() => {})));
    if (timer !== undefined) clearTimeout(timer);
    timer = soonest === Infinity ? undefined : setTimeout(() => void refresh(), Math.min(soonest - at, MAX_TIMER_MS));
    timer?.unref();
  }

  return {
    refresh,
    /** Whether `keyId` is past its date by the last read: the copy's answer while Redis is away. */
    due(keyId: string): boolean {
      const from = pending.get(keyId);
      return from !== undefined && from <= now();
    },
    close(): void {
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
