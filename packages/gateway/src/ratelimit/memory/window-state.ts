import type { Calendar } from '../calendar.js';
import { isMonth, type WindowPolicy } from '../policy.js';
import { admit, advance, bucketOf, clearWindow, resetAt, retryAt, type WindowState } from './sliding-window.js';

/**
 * A window of either kind brought to a moment, for the in-process limiter: a sliding window
 * (`sliding-window.ts`) by its buckets, a calendar month by its start. A month is a window whose
 * one bucket is the month: it counts from its first instant, starts again at the next month's
 * (a clock that steps back stays in the newest month seen, as a sliding window stays in its
 * newest bucket), and frees everything at once at its end. The Redis script does the same.
 */
export interface Position {
  /** Where a charge goes: the bucket, or the month's start. */
  readonly current: number;
  /** A month's end (ms); `undefined` for a sliding window. */
  readonly end: number | undefined;
}

/** Brings `state` to `at`, dropping what left the window, and says where `at` counts. */
export function bring(window: WindowPolicy, state: WindowState, at: number, calendar: Calendar): Position {
  if (!isMonth(window)) {
    const current = bucketOf(window, state, at);
    advance(window, state, current);
    return { current, end: undefined };
  }
  const month = calendar.monthOf(at);
  if (state.last < month.start) {
    clearWindow(state);
    state.first = state.last = month.start;
    return { current: month.start, end: month.end };
  }
  // The clock stepped back into an earlier month: the newest month seen goes on counting.
  return { current: state.last, end: state.last === month.start ? month.end : calendar.monthOf(state.last).end };
}

/** When `cost` more units fit (ms); `undefined` when they never can (more than the limit). */
export function retryOf(window: WindowPolicy, state: WindowState, position: Position, cost: number): number | undefined {
  if (position.end === undefined) return retryAt(window, state, cost);
  return window.limit < cost ? undefined : position.end;
}

/** When the window holds nothing again: its oldest counted bucket leaves, or the month ends. */
export function resetOf(window: WindowPolicy, state: WindowState, position: Position, at: number): number {
  return position.end ?? resetAt(window, state, at);
}

/** Counts `cost` units where `position` says. */
export function charge(state: WindowState, position: Position, cost: number): void {
  if (position.end === undefined) {
    admit(state, position.current, cost);
    return;
  }
  state.total += cost;
}

/** The window's length for headers: a sliding window's, or this month's (28 to 31 days, ± an hour). */
export function lengthOf(window: WindowPolicy, state: WindowState, position: Position): number {
  return position.end === undefined ? window.windowMs : position.end - state.first;
}
