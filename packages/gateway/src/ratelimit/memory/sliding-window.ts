import type { WindowPolicy } from '../policy.js';

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
  /**
   * Requests admitted per bucket, from bucket `first` (`counts[0]`) to `last`, as the Redis script
   * keeps them; empty when the window counts none. An array, not a map: the in-process limiter
   * holds one per window of every address it has seen, and a short array is the smallest.
   */
  counts: number[];
  total: number;
  /** Oldest bucket that may hold requests, and the newest written. */
  first: number;
  last: number;
}

/** The counts of every window that counts none: one array, never written (`admit` replaces it). */
const NO_COUNTS: number[] = [];

export function emptyWindow(): WindowState {
  return { counts: NO_COUNTS, total: 0, first: 0, last: 0 };
}

/** Makes `state` an empty window again, in place (the in-process limiter reuses a forgotten address's). */
export function clearWindow(state: WindowState): void {
  state.counts = NO_COUNTS;
  state.total = 0;
  state.first = 0;
  state.last = 0;
}

/** The bucket `now` falls in. A clock that steps back stays in the newest bucket seen. */
export function bucketOf(window: WindowPolicy, state: WindowState, now: number): number {
  return Math.max(Math.floor(now / (window.windowMs / window.buckets)), state.last);
}

/** Drops buckets that left the window as of bucket `current`, and empty ones at the front. */
export function advance(window: WindowPolicy, state: WindowState, current: number): void {
  const lowest = current - window.buckets;
  if (state.total === 0) {
    state.counts = NO_COUNTS;
    state.first = current;
    return;
  }
  const counts = state.counts;
  let dropped = 0;
  while (state.first <= state.last && (state.first < lowest || (counts[dropped] ?? 0) === 0)) {
    state.total -= counts[dropped] ?? 0;
    dropped += 1;
    state.first += 1;
  }
  if (dropped > 0) counts.splice(0, dropped);
  if (state.total === 0) state.first = current;
}

/** Counts one request (or `count`) in bucket `current` (after `advance`). */
export function admit(state: WindowState, current: number, count = 1): void {
  state.last = current;
  if (state.total === 0) {
    // A literal holds exactly one element; a push on an empty array would reserve seventeen.
    state.counts = [count];
    state.first = current;
    state.total = count;
    return;
  }
  const counts = state.counts;
  const at = current - state.first;
  while (counts.length < at) counts.push(0);
  counts[at] = (counts[at] ?? 0) + count;
  state.total += count;
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
    toFree -= state.counts[bucket - state.first] ?? 0;
    if (toFree <= 0) return (bucket + window.buckets + 1) * (window.windowMs / window.buckets);
  }
  return undefined;
}
