import type { Figure } from './figures.js';
import type { Generator, Measurement } from './measurements.js';
import { roundRatio, roundTable, roundValue, type RoundFigure, type RoundValue } from './round-figures.js';

/*
 * The goals of the issue "Every core": each a ratio of two scenarios run next to each other in
 * every round (the plan's groups), taken round by round, and the median of those ratios
 * (`round-figures.ts`): a round's ratio compares two runs a few seconds apart on the same machine.
 */

export interface ScalingFigure extends Pick<Figure, 'label' | 'goal' | 'format'> {
  readonly numerator: string;
  readonly denominator: string;
  /** req/s, or the proxy's CPU µs per request (every process of it summed). */
  readonly of: 'rps' | 'cpu';
}

const ratio = (value: number) => value.toFixed(2);

export const SCALING_FIGURES: readonly ScalingFigure[] = [
  {
    label: 'bare, WORKERS=2 ÷ WORKERS=1, req/s',
    numerator: 'gateway-bare-workers-2',
    denominator: 'gateway-bare',
    of: 'rps',
    goal: { at: 'least', target: 1.25 },
    format: ratio,
  },
  {
    label: 'full path, limits in process: CPU µs/request summed over the processes, WORKERS=2 ÷ WORKERS=1',
    numerator: 'gateway-limits-memory-workers-2',
    denominator: 'gateway-limits-memory',
    of: 'cpu',
    goal: { at: 'most', target: 1.1 },
    format: ratio,
  },
  {
    label: 'full path, limits in Redis: CPU µs/request summed over the processes, WORKERS=2 ÷ WORKERS=1',
    numerator: 'gateway-limits-redis-workers-2',
    denominator: 'gateway-limits-redis',
    of: 'cpu',
    goal: { at: 'most', target: 1.1 },
    format: ratio,
  },
  {
    label: 'full on Redis, WORKERS=2 ÷ HAProxy jwt_verify + stick table, nbthread 2, req/s',
    numerator: 'gateway-limits-redis-workers-2',
    denominator: 'haproxy-jwt-stick-table-nbthread-2',
    of: 'rps',
    goal: { at: 'least', target: 1.0 },
    format: ratio,
  },
  // For information: what the goals above are made of.
  { label: 'bare: CPU µs/request, WORKERS=2 ÷ WORKERS=1', numerator: 'gateway-bare-workers-2', denominator: 'gateway-bare', of: 'cpu', format: ratio },
  {
    label: 'full path, limits in process, WORKERS=2 ÷ WORKERS=1, req/s',
    numerator: 'gateway-limits-memory-workers-2',
    denominator: 'gateway-limits-memory',
    of: 'rps',
    format: ratio,
  },
  {
    label: 'full path, limits in Redis, WORKERS=2 ÷ WORKERS=1, req/s',
    numerator: 'gateway-limits-redis-workers-2',
    denominator: 'gateway-limits-redis',
    of: 'rps',
    format: ratio,
  },
  {
    label: 'HAProxy jwt_verify + stick table, nbthread 2 ÷ nbthread 1, req/s (not in the same group: rounds apart)',
    numerator: 'haproxy-jwt-stick-table-nbthread-2',
    denominator: 'haproxy-jwt-stick-table',
    of: 'rps',
    format: ratio,
  },
];

/** A figure from one generator: each round's ratio (rounds where both ran), and their median. */
export type ScalingValue = RoundValue;

/** `figure` as a figure of the rounds: its numerator's reading ÷ its denominator's, in each round. */
function roundFigure(figure: ScalingFigure): RoundFigure {
  const reading = figure.of === 'rps' ? (m: Measurement) => m.result.rps : (m: Measurement) => m.cpu.proxy;
  return { ...figure, value: roundRatio(figure.numerator, figure.denominator, reading) };
}

/** `figure` from the runs of `generator`, or `undefined` where either scenario gave no figure in any round. */
export function scalingValue(measurements: readonly Measurement[], figure: ScalingFigure, generator: Generator): ScalingValue | undefined {
  return roundValue(measurements, roundFigure(figure), generator);
}

/** The processes a scenario's proxy had (start and end of each run: a gateway with two workers has 3), as `3` or `1–3`. */
export function processesOf(measurements: readonly Measurement[], scenario: string): string | undefined {
  const counts = measurements.flatMap((m) =>
    m.scenario === scenario && m.cpu.proxyProcesses !== undefined ? [m.cpu.proxyProcesses.start, m.cpu.proxyProcesses.end] : [],
  );
  if (counts.length === 0) return undefined;
  const [low, high] = [Math.min(...counts), Math.max(...counts)];
  return low === high ? String(low) : `${low}–${high}`;
}

/** The report's table of these figures: each generator's median of the per-round ratios, its verdict, and the rounds' ratios. */
export function scalingLines(measurements: readonly Measurement[], judged: boolean): string[] {
  const lines = roundTable(SCALING_FIGURES.map(roundFigure), measurements, judged);
  const counted = [
    'gateway-bare',
    'gateway-bare-workers-2',
    'gateway-limits-memory',
    'gateway-limits-memory-workers-2',
    'gateway-limits-redis',
    'gateway-limits-redis-workers-2',
  ].flatMap((scenario) => {
    const processes = processesOf(measurements, scenario);
    return processes === undefined ? [] : [`${scenario} ${processes}`];
  });
  if (counted.length > 0) {
    lines.push(
      '',
      `Processes of each gateway, counted at the start and end of every run (a primary and its workers): ${counted.join(', ')}. CPU per request sums all of them, a worker replaced during a run included (lib/cpu.ts).`,
    );
    const twoWorkers = processesOf(measurements, 'gateway-bare-workers-2');
    if (twoWorkers === '1')
      lines.push(
        '',
        '**The gateways started with WORKERS=2 ran as one process**: this gateway has no workers, and the ratios above compare identical gateways (their distance from 1.00 is the noise of the method).',
      );
  }
  return lines;
}
