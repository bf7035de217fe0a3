import type { WindowPolicy } from './policy.js';

/**
 * Sub-bucketed sliding window, counted conservatively. Time is cut into buckets of
 * `windowMs / buckets`; a request at bucket i is admitted when the requests counted in buckets
 * i - buckets … i (the oldest one partly outside the window, counted whole) are fewer than the
 * limit. Every request inside any sliding interval of the window's length lies in those buckets
 * when the interval's last request is admitted, so no interval ever holds more than the limit.
 * The price is under-admission of at most one bucket's worth (1 s of a minute, 24 min of a day).
 * Work per request is O(1) amortised: each bucket is created and dropped once.
 *
 * The Lua script in `redis-script.ts` is the same algorithm; tests hold them to the same answers.
 */
export interface WindowState {
  /** Bucket index → requests admitted in it. */
  readonly counts: Map<number, number>;
  total: number;
  /** Oldest bucket that may hold requests, and the newest written. */
  first: number;
  last: number;
}

export function emptyWindow(): WindowState {
  return { counts: new Map(), total: 0, first: 0, last: 0 };
}

/** The bucket `now` falls in. A clock that steps back stays in the newest bucket seen. */
export function bucketOf(window: WindowPolicy, state: WindowState, now: number): number {
  return Math.max(Math.floor(now / (window.windowMs / window.buckets)), state.last);
}

/** Drops buckets that left the window as of bucket `current`, and empty ones at the front. */
export function advance(window: WindowPolicy, state: WindowState, current: number): void {
  const lowest = current - window.buckets;
  if (state.total === 0) {
    state.counts.clear();
    state.first = current;
    return;
  }
  while (state.first <= state.last && (state.first < lowest || (state.counts.get(state.first) ?? 0) === 0)) {
    state.total -= state.counts.get(state.first) ?? 0;
    state.counts.delete(state.first);
    state.first += 1;
  }
  if (state.total === 0) state.first = current;
}

/** Counts one request (or `count`) in bucket `current` (after `advance`). */
export function admit(state: WindowState, current: number, count = 1): void {
  if (state.total === 0) state.first = current;
  state.counts.set(current, (state.counts.get(current) ?? 0) + count);
  state.total += count;
  state.last = current;
}

/** When the oldest counted request leaves the window (ms), or `now` when nothing is counted. */
export function resetAt(window: WindowPolicy, state: WindowState, now: number): number {
  if (state.total === 0) return now;
  return (state.first + window.buckets + 1) * (window.windowMs / window.buckets);
}

/**
 * When `cost` more units fit (ms): the moment enough of the oldest buckets have left. `undefined`
 * when the limit can never admit them (a limit below the cost: 0, say).
 */
export function retryAt(window: WindowPolicy, state: WindowState, cost = 1): number | undefined {
  if (window.limit < cost) return undefined;
  let toFree = state.total + cost - window.limit;
  for (let bucket = state.first; bucket <= state.last; bucket++) {
    toFree -= state.counts.get(bucket) ?? 0;
    if (toFree <= 0) return (bucket + window.buckets + 1) * (window.windowMs / window.buckets);
  }
  return undefined;
}
