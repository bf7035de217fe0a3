import type { CpuPerRequest } from './cpu.js';
import type { LoadResult } from './load.js';
import type { RedisStats } from './script-calls.js';

/* What each run of a scenario measured, and its rounds summed up into one row per scenario and generator. */

/** The load generator of a measurement: autocannon for every scenario, wrk for the throughput ones. */
export type Generator = 'autocannon' | 'wrk';

export interface Measurement {
  readonly scenario: string;
  readonly generator: Generator;
  readonly description: string;
  readonly round: number;
  readonly expectStatuses: readonly number[];
  readonly reference?: boolean;
  readonly result: LoadResult;
  /** CPU µs per request during the run (from /proc; undefined where it cannot be read). */
  readonly cpu: CpuPerRequest;
  /** The script calls (FCALL, EVALSHA and EVAL) Redis ran during the run, on the scenarios that use Redis (`INFO commandstats`). */
  readonly scriptCalls?: number;
  /** What Redis did during the run (script calls, µs in them, its CPU), from its own counters, on the scenarios that use Redis. */
  readonly redis?: RedisStats;
}

/** A scenario's runs with one generator: medians over the rounds, and what was not expected. */
export interface Row {
  scenario: string;
  generator: Generator;
  reference: boolean;
  description: string;
  rps: number;
  p50: number;
  p99: number;
  unexpected: number;
  errors: number;
  cpu: CpuPerRequest;
}

/** Whether answers under `code` were expected: a listed status, or wrk's 2xx/3xx class where only such statuses are listed. */
function expected(code: string, statuses: readonly number[]): boolean {
  if (code === '2xx/3xx') return statuses.every((status) => status >= 200 && status < 400);
  return statuses.includes(Number(code));
}

export function summarise(measurements: readonly Measurement[]): Row[] {
  const keys = [...new Set(measurements.map((m) => `${m.scenario} ${m.generator}`))];
  return keys.map((key) => {
    const runs = measurements.filter((m) => `${m.scenario} ${m.generator}` === key);
    const [scenario, generator] = key.split(' ') as [string, Generator];
    // The median over rounds: one disturbed round (a noisy neighbour) cannot move it much.
    const median = (pick: (r: Measurement) => number | undefined) => {
      const values = runs
        .map(pick)
        .filter((v): v is number => v !== undefined)
        .sort((a, b) => a - b);
      if (values.length === 0) return undefined;
      const middle = values.length >> 1;
      return values.length % 2 === 1 ? (values[middle] as number) : ((values[middle - 1] as number) + (values[middle] as number)) / 2;
    };
    const unexpected = runs.reduce(
      (sum, m) =>
        sum +
        Object.entries(m.result.statuses)
          .filter(([code]) => !expected(code, m.expectStatuses))
          .reduce((n, [, count]) => n + count, 0),
      0,
    );
    return {
      scenario,
      generator,
      reference: runs[0]?.reference === true,
      description: runs[0]?.description ?? '',
      rps: median((m) => m.result.rps) ?? 0,
      p50: median((m) => m.result.p50) ?? 0,
      p99: median((m) => m.result.p99) ?? 0,
      cpu: { proxy: median((m) => m.cpu.proxy), core: median((m) => m.cpu.core), redis: median((m) => m.cpu.redis), machine: median((m) => m.cpu.machine) },
      unexpected,
      errors: runs.reduce((sum, m) => sum + m.result.errors + m.result.timeouts, 0),
    };
  });
}
