import type { LimiterFigures } from './limiter-figures.js';
import type { CpuPerRequest } from './cpu.js';
import type { Generator } from './measurements.js';

/** What a figure reads from one generator's medians: a scenario's row, if it ran. */
export interface FigureRow {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly cpu: CpuPerRequest;
}
export type RowOf = (scenario: string) => FigureRow | undefined;

/** A figure of the report, computed from one run; `goal` is what an issue asked of it. */
export interface Figure {
  readonly label: string;
  /** autocannon and wrk each give a value (throughput, CPU), or autocannon alone (fixed rate), or neither (the limiter). */
  readonly generators: readonly Generator[];
  readonly value: (row: RowOf, limiter: LimiterFigures | undefined) => number | undefined;
  readonly goal?: { readonly at: 'least' | 'most'; readonly target: number };
  readonly format: (value: number) => string;
}

const BOTH: readonly Generator[] = ['autocannon', 'wrk'];
const ratio = (value: number) => value.toFixed(2);
// Capacity ratios to a third decimal: the control's distance from 1.000 is read beside them.
const ratio3 = (value: number) => value.toFixed(3);
const micro = (value: number) => `${value.toFixed(1)} µs`;

/** Throughput of `numerator` over `denominator`, measured by the same generator in the same run. */
function throughput(numerator: string, denominator: string, goal?: number, label?: string): Figure {
  return {
    label: label ?? `${numerator} / ${denominator}`,
    generators: BOTH,
    value: (row) => {
      const [top, bottom] = [row(numerator), row(denominator)];
      return top === undefined || bottom === undefined || bottom.rps === 0 ? undefined : top.rps / bottom.rps;
    },
    ...(goal === undefined ? {} : { goal: { at: 'least', target: goal } }),
    format: ratio,
  };
}

/** The goals of the issue "Exact limits at local speed", all from this run. */
export const ISSUE_FIGURES: readonly Figure[] = [
  throughput('gateway-limits-redis', 'gateway-bare', 0.8, 'full pipeline on Redis ÷ gateway bare'),
  throughput('gateway-limits-redis', 'haproxy-jwt-stick-table', 1.0, 'full pipeline on Redis ÷ HAProxy jwt_verify + stick table'),
  throughput('gateway-limits-redis', 'fastify-stack', 2.5, 'full pipeline on Redis ÷ Fastify stack'),
  {
    label: 'Redis CPU per request, full pipeline on Redis',
    generators: BOTH,
    value: (row) => row('gateway-limits-redis')?.cpu.redis,
    goal: { at: 'most', target: 8 },
    format: micro,
  },
  {
    label: 'gateway CPU per request, full pipeline on Redis',
    generators: BOTH,
    value: (row) => row('gateway-limits-redis')?.cpu.proxy,
    goal: { at: 'most', target: 80 },
    format: micro,
  },
  {
    label: 'p99 added at 1,000 req/s, one connection, full pipeline on Redis',
    generators: ['autocannon'], // a fixed rate: wrk (unlike wrk2) cannot pace one
    value: (row) => {
      const [gateway, core] = [row('latency-gateway-redis-1000rps'), row('latency-core-1000rps')];
      return gateway === undefined || core === undefined ? undefined : gateway.p99 - core.p99;
    },
    goal: { at: 'most', target: 1 },
    format: (value) => `${value >= 0 ? '+' : ''}${value.toFixed(2)} ms`,
  },
  {
    label: 'limiter decisions/s, one process, one Redis',
    generators: [],
    value: (_row, limiter) => limiter?.decisionsPerSecond,
    goal: { at: 'least', target: 150_000 },
    format: (value) => Math.round(value).toLocaleString('en-US'),
  },
];

/**
 * The goals of the issue "Operable", judged on the paired measurement (`paired.ts`): each gateway's
 * capacity ratio to `off`, the gateways loaded together, from their CPU µs per request.
 */
export interface CapacityFigure extends Pick<Figure, 'label' | 'goal' | 'format'> {
  /** The gateway's name in the paired measurement (`measureObservability`). */
  readonly gateway: string;
}
export const CAPACITY_FIGURES: readonly CapacityFigure[] = [
  { gateway: 'metrics', label: 'full pipeline on Redis, metrics on (scraped every second) ÷ off', goal: { at: 'least', target: 0.97 }, format: ratio3 },
  { gateway: 'tracing', label: 'full pipeline on Redis, tracing exported ÷ off', goal: { at: 'least', target: 0.85 }, format: ratio3 },
  { gateway: 'sampled', label: 'full pipeline on Redis, one trace in ten exported (parentbased_traceidratio 0.1) ÷ off', format: ratio3 },
  { gateway: 'control', label: "control: a second gateway identical to off ÷ off (this run's noise)", format: ratio3 },
];

/** The same comparisons as throughput of gateways loaded one after another: for information. */
export const OBSERVABILITY_FIGURES: readonly Figure[] = [
  throughput('gateway-limits-redis-metrics', 'gateway-limits-redis', undefined, 'full pipeline on Redis, metrics on ÷ off, sequential throughput'),
  throughput('gateway-limits-redis-tracing', 'gateway-limits-redis', undefined, 'full pipeline on Redis, tracing exported ÷ off, sequential throughput'),
  throughput('gateway-limits-redis-control', 'gateway-limits-redis', undefined, 'control: a second gateway identical to off ÷ off, sequential throughput'),
];

/** Ratios with the goals of earlier issues (or none: shown for comparison). */
export const OTHER_RATIOS: readonly Figure[] = [
  throughput('gateway-bare', 'core-direct'),
  throughput('gateway-bare', 'gateway-bare-http-proxy'),
  throughput('gateway-auth-1-key', 'gateway-bare', 0.9),
  throughput('gateway-auth-10k-keys-warm', 'gateway-bare', 0.9),
  throughput('gateway-auth-10k-keys-cold', 'gateway-bare'),
  throughput('gateway-limits-memory', 'gateway-auth-1-key', 0.9),
  throughput('gateway-limits-redis', 'gateway-auth-redis', 0.9),
  throughput('gateway-rejection', 'gateway-limits-memory', 1.5),
  throughput('gateway-limits-redis', 'nginx-proxy-pass', 0.5),
  throughput('gateway-bare', 'nginx-proxy-pass'),
  throughput('gateway-bare', 'haproxy-bare'),
  throughput('gateway-limits-memory', 'haproxy-jwt-stick-table'),
  throughput('haproxy-jwt-stick-table', 'haproxy-bare'),
  throughput('fastify-stack', 'gateway-bare'),
];

/** "met" or "missed by …" for `value` against `figure`'s goal; a dash without a goal. */
export function verdict(figure: Pick<Figure, 'goal' | 'format'>, value: number | undefined, judged: boolean): string {
  if (figure.goal === undefined || value === undefined) return '—';
  if (!judged) return 'not judged (--quick)';
  const { at, target } = figure.goal;
  const met = at === 'least' ? value >= target : value <= target;
  return met ? 'met' : `**missed** by ${figure.format(Math.abs(value - target))}`;
}

/** The goal as text: `≥ 0.80`, `≤ 8.0 µs`. */
export function goalText(figure: Pick<Figure, 'goal' | 'format'>): string {
  return figure.goal === undefined ? '—' : `${figure.goal.at === 'least' ? '≥' : '≤'} ${figure.format(figure.goal.target)}`;
}
