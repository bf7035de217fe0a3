import assert from 'node:assert/strict';
import type { Limiter, LimitRequest, Policy, RateDecision } from '../../src/ratelimit/index.js';
import { seededRandom } from './seeded-random.js';

// The limiter's property tests, one set of helpers: a seeded random timeline, its replay on a
// limiter under an injected clock, and the checks the tests share. A failure replays from its seed.

/** One band of gaps: with a draw below `below`, the next step comes within `withinMs`. */
export interface GapBand {
  readonly below: number;
  readonly withinMs: number;
}

/** Where a timeline starts and how far apart its steps are. */
export interface TimelineShape<S> {
  /** The first step comes within `startSpreadMs` after this instant. */
  readonly startAt: number;
  readonly startSpreadMs: number;
  /** Bands in increasing `below`, the last one 1: the first band above the draw sets the gap. */
  readonly gaps: readonly GapBand[];
  /** The step at `at`, drawing what else it needs from `next` (after the gap's draws). */
  readonly step: (at: number, next: () => number) => S;
}

/** Bursts, pauses and steady stretches: half the steps within 50 ms, most within 2 s, the rest within `longMs`. */
export function burstyGaps(longMs: number): readonly GapBand[] {
  return [
    { below: 0.5, withinMs: 50 },
    { below: 0.9, withinMs: 2_000 },
    { below: 1, withinMs: longMs },
  ];
}

/** An instant in January 2027, where most timelines start (within 100 s after it). */
export const TIMELINE_START = 1_800_000_000_000;

/** `count` steps at increasing times, the same for the same seed. */
export function timeline<S>(seed: number, count: number, shape: TimelineShape<S>): S[] {
  const next = seededRandom(seed);
  const steps: S[] = [];
  let at = shape.startAt + Math.floor(next() * shape.startSpreadMs);
  for (let i = 0; i < count; i++) {
    const r = next();
    const band = shape.gaps.find((gap) => r < gap.below) ?? shape.gaps[shape.gaps.length - 1];
    at += Math.floor(next() * (band?.withinMs ?? 0));
    steps.push(shape.step(at, next));
  }
  return steps;
}

/** Plain instants, for timelines whose steps differ only in time. */
export function instants(seed: number, count: number, longMs: number): number[] {
  return timeline(seed, count, { startAt: TIMELINE_START, startSpreadMs: 100_000, gaps: burstyGaps(longMs), step: (at) => at });
}

/** A step is an instant, or anything that carries its instant. */
export type Timed = number | { readonly at: number };

export interface Replayed {
  /** The decision of each step's request, in order. */
  readonly checks: RateDecision[];
  /** With `peeks`: the peek made just before each request, at the same instant. */
  readonly peeks: RateDecision[];
}

/**
 * Replays the steps on a fresh limiter whose clock reads each step's instant: `request` says what
 * the step asks; with `peeks`, a peek of the same request comes first at each instant.
 */
export async function replay<S extends Timed>(
  make: (now: () => number) => Limiter,
  steps: readonly S[],
  request: (step: S) => LimitRequest,
  options: { readonly peeks?: boolean } = {},
): Promise<Replayed> {
  let now = 0;
  const limiter = make(() => now);
  const checks: RateDecision[] = [];
  const peeks: RateDecision[] = [];
  for (const step of steps) {
    now = typeof step === 'number' ? step : step.at;
    const asked = request(step);
    if (options.peeks === true) peeks.push(await limiter.check({ ...asked, peek: true }));
    checks.push(await limiter.check(asked));
  }
  return { checks, peeks };
}

/** An admitted request: its instant, and the units it spent (1 when a plain instant). */
export type Admitted = number | { readonly at: number; readonly cost: number };

/** In every sliding interval of each of the policy's windows, the units admitted stay within its limit. */
export function assertNeverOverLimit(admitted: readonly Admitted[], policy: Policy): void {
  const at = (a: Admitted) => (typeof a === 'number' ? a : a.at);
  const units = (a: Admitted) => (typeof a === 'number' ? 1 : a.cost);
  for (const window of policy.windows) {
    let start = 0;
    let inWindow = 0;
    for (let end = 0; end < admitted.length; end++) {
      inWindow += units(admitted[end] as Admitted);
      while (at(admitted[start] as Admitted) <= at(admitted[end] as Admitted) - window.windowMs) inWindow -= units(admitted[start++] as Admitted);
      assert.ok(
        inWindow <= window.limit,
        `${inWindow} units admitted within ${window.windowMs} ms ending at ${at(admitted[end] as Admitted)} (limit ${window.limit})`,
      );
    }
  }
}

/** The parts of a decision two limiters must agree on, as a function for `map` and `deepEqual`. */
export function decisionShape<K extends keyof RateDecision>(...fields: readonly K[]): (d: RateDecision) => Pick<RateDecision, K> {
  return (d) => Object.fromEntries(fields.map((field) => [field, d[field]])) as Pick<RateDecision, K>;
}
