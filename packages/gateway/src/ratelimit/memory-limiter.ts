import { decision, type Limiter, type LimitRequest, type Policy, type RateDecision } from './policy.js';
import { admit, advance, bucketOf, emptyWindow, resetAt, retryAt, type WindowState } from './sliding-window.js';

export interface MemoryLimiterOptions {
  /** ms since the epoch; injected so tests control time. */
  readonly now?: () => number;
  /** Limits are this share of the policy's (the `local` fallback runs at a share of the plan). */
  readonly share?: number;
}

interface Strikes {
  count: number;
  expiresAt: number;
}

const SWEEP_EVERY = 10_000;

/**
 * The limiter for one gateway process (no REDIS_URL), and the `local` fallback while Redis is
 * away: the same algorithm and the same answers as the Redis script, in a Map.
 */
export interface MemoryLimiter extends Limiter {
  readonly size: () => number;
  /**
   * Counts what another limiter admitted for `request.subject`: after it, each window holds at
   * least this limiter's share of `used[name]` (rounded up), in the current bucket. The `local`
   * fallback is seeded with what Redis had counted, so it admits only its share of what was left.
   */
  seed(request: LimitRequest, used: ReadonlyMap<string, number>): void;
}

export function createMemoryLimiter(options: MemoryLimiterOptions = {}): MemoryLimiter {
  const now = options.now ?? Date.now;
  const share = options.share ?? 1;
  const windows = new Map<string, { state: WindowState; touched: number; windowMs: number }>();
  const bans = new Map<string, number>();
  const strikes = new Map<string, Strikes>();
  let checks = 0;

  /** Forgets what nobody touched for longer than its window: memory stays bounded by activity. */
  function sweep(at: number): void {
    for (const [key, entry] of windows) if (at - entry.touched > entry.windowMs) windows.delete(key);
    for (const [key, until] of bans) if (until <= at) bans.delete(key);
    for (const [key, entry] of strikes) if (entry.expiresAt <= at) strikes.delete(key);
  }

  function scaled(policy: Policy): Policy {
    if (share === 1) return policy;
    return { ...policy, windows: policy.windows.map((w) => ({ ...w, limit: Math.floor(w.limit * share) })) };
  }

  /**
   * The request's windows at `at`, old buckets dropped. For a peek, copies: dropping the buckets
   * that left the window is the only change it would make, and it makes none.
   */
  function statesOf(subject: string, policy: Policy, at: number, peek = false) {
    return policy.windows.map((window) => {
      const key = `${subject}\u0000${window.name}`;
      let entry = windows.get(key);
      let state: WindowState;
      if (peek) {
        state =
          entry === undefined
            ? emptyWindow()
            : { counts: new Map(entry.state.counts), total: entry.state.total, first: entry.state.first, last: entry.state.last };
      } else {
        if (entry === undefined) windows.set(key, (entry = { state: emptyWindow(), touched: at, windowMs: window.windowMs }));
        entry.touched = at;
        state = entry.state;
      }
      const current = bucketOf(window, state, at);
      advance(window, state, current);
      return { window, state, current };
    });
  }

  return {
    seed(request, used) {
      const at = now();
      for (const { window, state, current } of statesOf(request.subject, scaled(request.policy), at)) {
        const target = Math.min(window.limit, Math.ceil((used.get(window.name) ?? 0) * share));
        if (target > state.total) admit(state, current, target - state.total);
      }
    },
    async check(request: LimitRequest): Promise<RateDecision> {
      const at = now();
      const peek = request.peek === true;
      if (!peek && ++checks % SWEEP_EVERY === 0) sweep(at);
      const policy = scaled(request.policy);
      const states = statesOf(request.subject, policy, at, peek);
      const view = (): RateDecision['windows'] =>
        states.map(({ window, state }) => ({
          name: window.name,
          limit: window.limit,
          windowMs: window.windowMs,
          remaining: Math.max(0, window.limit - state.total),
          resetAt: resetAt(window, state, at),
        }));

      const bannedUntil = request.keyId === undefined ? undefined : bans.get(request.keyId);
      if (bannedUntil !== undefined && bannedUntil > at) {
        return decision('banned', 'process', { policy, windows: view(), retryAt: bannedUntil, now: at });
      }

      const cost = request.cost ?? 1;
      const blocking = states.filter(({ window, state }) => state.total + cost > window.limit);
      if (blocking.length === 0) {
        if (peek) return decision('allowed', 'process', { policy, windows: view(), retryAt: undefined, now: at });
        for (const { state, current } of states) admit(state, current, cost);
        return decision('allowed', 'process', { policy, windows: view(), retryAt: undefined, now: at });
      }

      const retries = blocking.map(({ window, state }) => retryAt(window, state, cost));
      const retry = retries.some((r) => r === undefined) ? undefined : Math.max(...(retries as number[]));
      const ban = policy.ban;
      if (!peek && request.keyId !== undefined && ban !== undefined) {
        let entry = strikes.get(request.keyId);
        if (entry === undefined || entry.expiresAt <= at) strikes.set(request.keyId, (entry = { count: 0, expiresAt: at + ban.strikeWindowMs }));
        entry.count += 1;
        if (entry.count >= ban.strikes) {
          strikes.delete(request.keyId);
          bans.set(request.keyId, at + ban.banMs);
          return decision('banned', 'process', { policy, windows: view(), retryAt: at + ban.banMs, now: at });
        }
      }
      return decision('limited', 'process', { policy, windows: view(), retryAt: retry, now: at });
    },
    size: () => windows.size,
  };
}
