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
}

function summarise(measurements: readonly Measurement[]): Row[] {
  const names = [...new Set(measurements.map((m) => m.scenario))];
  return names.map((scenario) => {
    const runs = measurements.filter((m) => m.scenario === scenario);
    // The median over rounds: one disturbed round (a noisy neighbour) cannot move it much.
    const median = (pick: (r: LoadResult) => number) => {
      const values = runs.map((m) => pick(m.result)).sort((a, b) => a - b);
      const middle = values.length >> 1;
      return values.length % 2 === 1 ? (values[middle] as number) : ((values[middle - 1] as number) + (values[middle] as number)) / 2;
    };
    const unexpected = runs.reduce((sum, m) => sum + Object.entries(m.result.statuses).filter(([code]) => !m.expectStatuses.includes(Number(code))).reduce((n, [, count]) => n + count, 0), 0);
    return {
      scenario,
      reference: runs[0]?.reference === true,
      description: runs[0]?.description ?? '',
      rps: median((r) => r.rps),
      p50: median((r) => r.p50),
      p99: median((r) => r.p99),
      unexpected,
      errors: runs.reduce((sum, m) => sum + m.result.errors + m.result.timeouts, 0),
    };
  });
}

/** The markdown report: settings, machine, a table per scenario, the ratios against their goals. */
export function renderReport(run: RunInfo, measurements: readonly Measurement[], limiter?: LimiterFigures): { markdown: string; svg: string; unexpected: number } {
  const rows = summarise(measurements);
  const bySce = new Map(rows.map((row) => [row.scenario, row]));
  const lines = [
    `# Benchmark ${run.date}${run.quick ? ' (quick: a smoke test, not a measurement)' : ''}`,
    '',
    `Node ${run.machine.node}, ${run.machine.cores} × ${run.machine.cpu}, load average at start ${run.machine.loadavgAtStart.map((n) => n.toFixed(2)).join(' ')}.`,
    `autocannon: ${run.settings.connections} connections, pipelining ${run.settings.pipelining}, ${run.settings.durationSeconds} s per run after a ${run.settings.warmupSeconds} s warm-up; paired scenarios alternate over ${run.rounds} round(s), and the table shows their medians; ${run.manyKeyCount} distinct keys in the many-keys scenarios.`,
    '',
    '| Scenario | req/s | p50 ms | p99 ms | unexpected statuses | socket errors | What |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r.scenario} | ${Math.round(r.rps)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.unexpected === 0 ? '0' : `**${r.unexpected}**`} | ${r.errors === 0 ? '0' : `**${r.errors}**`} | ${r.description} |`),
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
  const gateway = bySce.get('latency-gateway-1000rps');
  if (core !== undefined && gateway !== undefined) {
    const added = gateway.p99 - core.p99;
    const verdict = run.quick ? '(not judged in --quick)' : added <= 2 ? 'met' : `**missed by ${(added - 2).toFixed(1)} ms**`;
    lines.push('', `Latency added by the gateway at a fixed 1,000 req/s: p50 +${(gateway.p50 - core.p50).toFixed(1)} ms, p99 +${added.toFixed(1)} ms (goal ≤ 2 ms: ${verdict}).`);
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
