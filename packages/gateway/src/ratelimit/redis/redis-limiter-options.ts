import type { Calendar } from '../calendar.js';

/** What the Redis limiter (`redis-limiter.ts`) is given, and the limits it keeps to. */
export interface RedisLimiterOptions {
  readonly prefix: string;
  /** ms since the epoch, for tests only; production uses Redis TIME (one clock for all instances). */
  readonly now?: () => number;
  /** How long a batch stays open: 0 (the default) closes it at the end of the event-loop turn. */
  readonly batchWindowMs?: number;
  /** Requests at most in one script call. */
  readonly maxBatch?: number;
  /**
   * The command budget (ms): a call that Redis starts later than this after it was sent (on
   * Redis's clock, learnt from earlier replies) decides nothing and charges nothing, since the
   * gateway has answered its requests without it by then. Absent: no deadline.
   */
  readonly budgetMs?: number;
  /** The months of monthly quotas (`QUOTA_TIME_ZONE`); UTC by default. */
  readonly calendar?: Calendar;
  /**
   * Bounded leases (`leases.ts`, `lease-lua.ts`): a busy account's requests are admitted from units
   * charged ahead to this process, without a round trip. `maxUnits`: the most one lease holds (0:
   * none). `revoked`: the deny-list's local copy, which a request decided from a lease is checked
   * against (see `LeaseOptions.revoked`). With leases the limiter listens for recalls (another
   * instance refused for units this one holds) on a Redis connection of its own (`lease-recall.ts`).
   * Absent: every request is decided in Redis.
   */
  readonly leases?: { readonly maxUnits: number; readonly revoked?: (keyId: string) => boolean };
}

/** Requests at most per script call: keeps one run of the script well under a millisecond. */
export const MAX_BATCH = 128;

/**
 * While a script call is out, the next waits for its answer, at most this long: the batch grows
 * with the load (a loaded gateway's calls carry what arrived during one round trip). A few ms: a
 * healthy Redis answers well within it even on a busy host, and a stalled one holds no request
 * much longer than it would anyway.
 */
export const HOLD_WHILE_OUT_MS = 2;

/** Readings of Redis's clock while warming: the first is often read late. */
export const WARM_READINGS = 3;
