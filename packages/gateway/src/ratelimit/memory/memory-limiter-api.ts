import type { Calendar } from '../calendar.js';
import type { Limiter, LimitRequest } from '../limiter.js';

export interface MemoryLimiterOptions {
  /** ms since the epoch; injected so tests control time. */
  readonly now?: () => number;
  /** Limits are this share of the policy's (the `local` fallback runs at a share of the plan). */
  readonly share?: number;
  /** The months of monthly quotas (`QUOTA_TIME_ZONE`); UTC by default. */
  readonly calendar?: Calendar;
  /**
   * Anonymous client addresses whose counters are kept at most (`RATE_LIMIT_MAX_ADDRESSES`): past
   * it, the address least recently seen is forgotten first. Accounts, usage limits and ceilings
   * are never forgotten for it (keys and operations are the operator's, addresses the world's).
   */
  readonly maxAddresses?: number;
}

/** `RATE_LIMIT_MAX_ADDRESSES`' default: about 8 MB of counters (about 400 bytes an address), 35 MB of RSS at most with the garbage it makes. */
export const DEFAULT_MAX_ADDRESSES = 20_000;

/**
 * The limiter for one gateway process (no REDIS_URL), and the `local` fallback while Redis is
 * away: the same algorithm and the same answers as the Redis script, in a Map.
 */
export interface MemoryLimiter extends Limiter {
  /** Subjects whose counters are kept (accounts, addresses, usage limits, ceilings). */
  readonly size: () => number;
  /** Of them, anonymous client addresses (at most `maxAddresses`). */
  readonly addresses: () => number;
  /**
   * Counts what another limiter admitted for `request.subject`: after it, each window holds at
   * least this limiter's share of `used[name]` (rounded up), in the current bucket. The `local`
   * fallback is seeded with what Redis had counted, so it admits only its share of what was left.
   */
  seed(request: LimitRequest, used: ReadonlyMap<string, number>): void;
  /** Lifts the ban of key `keyId`, and forgets its strikes (the admin API): true when it was banned. */
  liftBan(keyId: string): boolean;
}
