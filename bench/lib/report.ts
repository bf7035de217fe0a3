import { renderChart } from './chart.js';
import type { LimiterFigures } from './limiter-figures.js';
import type { LoadResult, LoadSettings } from './load.js';

export interface Measurement {
  readonly scenario: string;
  readonly description: string;
  readonly round: number;
  readonly expectStatuses: readonly number[];
  readonly reference?: boolean;
  readonly result: LoadResult;
  /** CPU µs per request during the run (from /proc; undefined where it cannot be read). */
  readonly cpu: CpuPerRequest;
}

export interface CpuPerRequest {
  /** Every gateway process and nginx (all but the one measured sit idle). */
  readonly proxy: number | undefined;
  readonly core: number | undefined;
  readonly redis: number | undefined;
  /** The whole machine, the load generator included. */
  readonly machine: number | undefined;
}

export interface RunInfo {
  readonly date: string;
  readonly quick: boolean;
  readonly rounds: number;
  readonly settings: LoadSettings;
  readonly manyKeyCount: number;
  readonly machine: { node: string; cpu: string; cores: number; loadavgAtStart: number[] };
}

/** Ratios the issues set goals for: numerator, denominator, goal. */
const RATIOS: [numerator: string, denominator: string, goal: number | undefined][] = [
  ['gateway-bare', 'core-direct', undefined],
  ['gateway-bare', 'gateway-bare-http-proxy', undefined],
  ['gateway-auth-1-key', 'gateway-bare', 0.9],
  ['gateway-auth-10k-keys-warm', 'gateway-bare', 0.9],
  ['gateway-auth-10k-keys-cold', 'gateway-bare', undefined],
  ['gateway-limits-memory', 'gateway-auth-1-key', 0.9],
  ['gateway-limits-redis', 'gateway-auth-redis', 0.9],
  ['gateway-limits-redis', 'gateway-bare', 0.9],
  ['gateway-rejection', 'gateway-limits-memory', 1.5],
  ['gateway-limits-redis', 'nginx-proxy-pass', 0.5],
  ['gateway-bare', 'nginx-proxy-pass', undefined],
];

interface Row {
  scenario: string;
  reference: boolean;
  description: string;
  rps: number;
  p50: number;
  p99: number;
  unexpected: number;
  errors: number;
  cpu: CpuPerRequest;
}

function summarise(measurements: readonly Measurement[]): Row[] {
  const names = [...new Set(measurements.map((m) => m.scenario))];
  return names.map((scenario) => {
    const runs = measurements.filter((m) => m.scenario === scenario);
    // The median over rounds: one disturbed round (a noisy neighbour) cannot move it much.
    const median = (pick: (r: Measurement) => number | undefined) => {
      const values = runs.map(pick).filter((v): v is number => v !== undefined).sort((a, b) => a - b);
      if (values.length === 0) return undefined;
      const middle = values.length >> 1;
      return values.length % 2 === 1 ? (values[middle] as number) : ((values[middle - 1] as number) + (values[middle] as number)) / 2;
    };
    const unexpected = runs.reduce((sum, m) => sum + Object.entries(m.result.statuses).filter(([code]) => !m.expectStatuses.includes(Number(code))).reduce((n, [, count]) => n + count, 0), 0);
    return {
      scenario,
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

/** CPU µs per request, or a dash where it was not measured (no Redis in the scenario, not Linux). */
function micro(value: number | undefined): string {
  return value === undefined ? '—' : value < 1 ? '0' : String(Math.round(value));
}

/** The markdown report: settings, machine, a table per scenario, the ratios against their goals. */
export function renderReport(run: RunInfo, measurements: readonly Measurement[], limiter?: LimiterFigures): { markdown: string; svg: string; unexpected: number } {
  const rows = summarise(measurements);
  const bySce = new Map(rows.map((row) => [row.scenario, row]));
  const lines = [
    `# Benchmark ${run.date}${run.quick ? ' (quick: a smoke test, not a measurement)' : ''}`,
    '',
    `Node ${run.machine.node}, ${run.machine.cores} × ${run.machine.cpu}, load average at start ${run.machine.loadavgAtStart.map((n) => n.toFixed(2)).join(' ')}.`,
    `autocannon: ${run.settings.connections} connections, pipelining ${run.settings.pipelining}, ${run.settings.durationSeconds} s per run after a ${run.settings.warmupSeconds} s warm-up; paired scenarios alternate over ${run.rounds} round(s), and the table shows their medians; ${run.manyKeyCount} distinct keys in the many-keys scenarios; the latency-* scenarios use one connection capped at 1,000 req/s. Latencies are over every answer, from autocannon's per-response times.`,
    '',
    '| Scenario | req/s | p50 ms | p99 ms | unexpected statuses | socket errors | CPU µs/req: proxy | core | Redis | machine | What |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${Math.round(r.rps)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.unexpected === 0 ? '0' : `**${r.unexpected}**`} | ${r.errors === 0 ? '0' : `**${r.errors}**`} | ${micro(r.cpu.proxy)} | ${micro(r.cpu.core)} | ${micro(r.cpu.redis)} | ${micro(r.cpu.machine)} | ${r.description} |`,
    ),
    '',
    'CPU µs/req is the CPU time each part used during the run, divided by the requests answered (Linux /proc, 10 ms ticks; the idle gateways count under proxy). The machine column includes autocannon: throughput on these 2 cores is about 2,000,000 µs ÷ that figure.',
    '',
    '| Ratio | value | goal |',
    '|---|---:|---|',
  ];
  for (const [numerator, denominator, goal] of RATIOS) {
    const top = bySce.get(numerator);
    const bottom = bySce.get(denominator);
    if (top === undefined || bottom === undefined) continue;
    const ratio = top.rps / bottom.rps;
    const judged = goal !== undefined && !run.quick;
    const verdict = !judged ? (goal === undefined ? '—' : `≥ ${goal} (not judged in --quick)`) : `≥ ${goal} ${ratio >= goal ? 'met' : `**missed by ${(goal - ratio).toFixed(2)}**`}`;
    lines.push(`| ${numerator} / ${denominator} | ${ratio.toFixed(2)} | ${verdict} |`);
  }
  const core = bySce.get('latency-core-1000rps');
  for (const [name, what] of [['latency-gateway-1000rps', 'limits in process'], ['latency-gateway-redis-1000rps', 'revocations and limits in Redis']] as const) {
    const gateway = bySce.get(name);
    if (core === undefined || gateway === undefined) continue;
    const added = gateway.p99 - core.p99;
    const verdict = run.quick ? '(not judged in --quick)' : added <= 2 ? 'met' : `**missed by ${(added - 2).toFixed(2)} ms**`;
    lines.push('', `Latency added by the full pipeline (${what}) at 1,000 req/s from one connection: p50 +${(gateway.p50 - core.p50).toFixed(2)} ms, p99 +${added.toFixed(2)} ms (goal ≤ 2 ms: ${verdict}).`);
  }
  if (limiter !== undefined) {
    lines.push(
      '',
      `Limiter, one process against a loopback Redis: **${Math.round(limiter.decisionsPerSecond)} decisions/s** (${limiter.concurrency} in flight, ${limiter.seconds} s; goal ≥ 30,000).`,
      `Redis memory per account (MEMORY USAGE of its counters): ${limiter.memory.oneRequest} B after one request, ${limiter.memory.typical} B for a steady client (a request every 5 s), ${limiter.memory.worst} B with every bucket of both windows in use (goals ≤ 256 B typical, ≤ 2 KB worst).`,
    );
  }
  const flagged = rows.reduce((sum, r) => sum + r.unexpected + r.errors, 0);
  // Our own scenarios fail the run on any surprise; a reference (nginx) is only flagged.
  const unexpected = rows.filter((r) => !r.reference).reduce((sum, r) => sum + r.unexpected + r.errors, 0);
  if (flagged > 0) lines.push('', `**${flagged} unexpected answers or socket errors** (${unexpected} in our own scenarios): see the JSON for the status counts.`);
  const svg = renderChart(`Benchmark ${run.date}${run.quick ? ' (quick)' : ''}: medians, ${run.machine.cores} cores`, rows);
  return { markdown: `${lines.join('\n')}\n`, svg, unexpected };
}
