import assert from 'node:assert/strict';
import type { CpuPerRequest } from './cpu.js';
import type { Measurement } from './measurements.js';

/* For the report's tests: runs made up to the figure, and a figure found by its label. */

export interface MeasuredOptions {
  readonly generator?: Measurement['generator'];
  /** CPU µs per request, each reading absent unless given. */
  readonly cpu?: Partial<CpuPerRequest>;
  readonly scriptCalls?: number;
}

/** A 3 s run of `scenario` in `round` at `rps` req/s, every answer a 200 (by wrk unless told). */
export function measured(scenario: string, round: number, rps: number, options: MeasuredOptions = {}): Measurement {
  return {
    scenario,
    generator: options.generator ?? 'wrk',
    description: '',
    round,
    expectStatuses: [200],
    result: { requests: rps * 3, rps, p50: 1, p99: 2, statuses: { 200: rps * 3 }, errors: 0, timeouts: 0, raw: undefined },
    cpu: { proxy: undefined, core: undefined, redis: undefined, machine: undefined, ...options.cpu },
    ...(options.scriptCalls === undefined ? {} : { scriptCalls: options.scriptCalls }),
  };
}

/** The figure of `figures` labelled `label`; fails the test where there is none. */
export function byLabel<F extends { readonly label: string }>(figures: readonly F[], label: string): F {
  const found = figures.find((figure) => figure.label === label);
  assert.ok(found, label);
  return found;
}
