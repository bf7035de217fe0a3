import { burstLines, inexactQuietBursts, type BurstFigures } from './bursts.js';
import { capacityLines } from './capacity-report.js';
import { renderChart } from './chart.js';
import { costLines } from './cost-figures.js';
import { goalText, ISSUE_FIGURES, OBSERVABILITY_FIGURES, OTHER_RATIOS, verdict, type Figure, type RowOf } from './figures.js';
import type { LimiterFigures } from './limiter-figures.js';
import type { LoadSettings } from './load.js';
import { summarise, type Generator, type Measurement } from './measurements.js';
import type { PairedResult } from './paired.js';
import type { ReloadFigures } from './reload.js';
import { failedRequests, reloadLines } from './reload-report.js';
import { scalingLines } from './scaling.js';
import type { SpreadName } from './accounts.js';
import { tenantSection } from './tenant-figures.js';

export interface RunInfo {
  readonly date: string;
  readonly quick: boolean;
  /** `--workers`: only what the goals of the issue "Every core" need. */
  readonly workersOnly?: boolean;
  readonly rounds: number;
  readonly settings: LoadSettings;
  readonly manyKeyCount: number;
  /** The spreads of accounts the throughput scenarios ran with (issue 40; absent in runs before it: one account). */
  readonly spreads?: readonly SpreadName[];
  /** `--scenarios`: the only scenarios run (absent: all of them). */
  readonly only?: readonly string[];
  readonly machine: { node: string; cpu: string; cores: number; loadavgAtStart: number[] };
  /** How long the whole suite took, start-up included. */
  readonly seconds: number;
  /** References and generators that could not run here, with the reason. */
  readonly skipped: readonly string[];
  /** The JWS alg the HAProxy JWT reference verified, when it ran. */
  readonly haproxyAlgorithm: string | undefined;
  /** The protocol and cipher each TLS scenario's server agreed with a Node client, by scenario (absent in runs before them). */
  readonly tls?: Readonly<Record<string, string>>;
}

/** CPU µs per request, or a dash where it was not measured (no Redis in the scenario, not Linux). */
function micro(value: number | undefined): string {
  return value === undefined ? '—' : value < 1 ? '0' : String(Math.round(value));
}

/** The markdown report: settings, machine, a table per generator, the figures against their goals. */
export function renderReport(
  run: RunInfo,
  measurements: readonly Measurement[],
  limiter?: LimiterFigures,
  capacity?: PairedResult,
  workers?: { readonly reload?: ReloadFigures; readonly bursts?: BurstFigures },
): { markdown: string; svg: string; unexpected: number } {
  const rows = summarise(measurements);
  const rowsOf = (generator: Generator) => new Map(rows.filter((row) => row.generator === generator).map((row) => [row.scenario, row]));
  const byGenerator = { autocannon: rowsOf('autocannon'), wrk: rowsOf('wrk') };
  const lines = [
    `# Benchmark ${run.date}${run.quick ? ' (quick: a smoke test, not a measurement)' : ''}${run.workersOnly === true ? ' (--workers: the goals of the issue "Every core" only)' : ''}`,
    '',
    `Node ${run.machine.node}, ${run.machine.cores} × ${run.machine.cpu}, load average at start ${run.machine.loadavgAtStart.map((n) => n.toFixed(2)).join(' ')}; the whole suite took ${Math.floor(run.seconds / 60)} min ${run.seconds % 60} s.`,
    `autocannon: ${run.settings.connections} connections, pipelining ${run.settings.pipelining}, ${run.settings.durationSeconds} s per run after a ${run.settings.warmupSeconds} s warm-up; paired scenarios alternate over ${run.rounds} round(s), and the tables show their medians; ${run.manyKeyCount} distinct keys in the many-keys scenarios; the latency-* scenarios use one connection capped at 1,000 req/s. Latencies are over every answer, from autocannon's per-response times.`,
    ...run.skipped.map((line) => `Not measured here: ${line}.`),
    ...(run.only === undefined ? [] : [`Only these scenarios ran (--scenarios), and nothing after the rounds: ${run.only.join(', ')}.`]),
    ...tenantSection(measurements, run.quick, run.spreads),
    '',
    '| Scenario | req/s | p50 ms | p99 ms | unexpected statuses | socket errors | CPU µs/req: proxy | core | Redis | machine | What |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...[...byGenerator.autocannon.values()].map(
      (r) =>
        `| ${r.scenario} | ${Math.round(r.rps)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${count(r.unexpected)} | ${count(r.errors)} | ${micro(r.cpu.proxy)} | ${micro(r.cpu.core)} | ${micro(r.cpu.redis)} | ${micro(r.cpu.machine)} | ${r.description} |`,
    ),
    '',
    "CPU µs/req is the CPU time each part used during the run, divided by the requests answered (Linux /proc, 10 ms ticks): proxy is the scenario's own proxy, every process of it summed (a gateway's primary and workers, nginx's master and worker), core the pets core, Redis the suite's redis-server, machine both cores, the load generator included (throughput on these 2 cores is about 2,000,000 µs ÷ that figure).",
    `References: nginx (1 worker) and HAProxy (nbthread 1) keep upstream connections alive and write no logs; the Fastify stack and every gateway write one access line per request to /dev/null. ${run.haproxyAlgorithm === undefined ? '' : `HAProxy's jwt_verify checked an ${run.haproxyAlgorithm} signature on every request${run.haproxyAlgorithm === 'EdDSA' ? '' : ' (this HAProxy cannot verify EdDSA: the same claims were signed with an ES256 key for it; the gateways and the Fastify stack verify the EdDSA key)'}.`}`,
  ];
  if (byGenerator.wrk.size > 0) {
    lines.push(
      '',
      `wrk beside autocannon: \`wrk -t1 -c${run.settings.connections} -d${Math.max(1, Math.round(run.settings.durationSeconds))}s --latency\`, the same request right after each autocannon run, same rounds. wrk (one C thread) leaves the proxy more of the two cores than autocannon does.`,
      '',
      '| Scenario | autocannon req/s | wrk req/s | wrk ÷ autocannon | wrk p50 ms | wrk p99 ms | unexpected statuses | socket errors | CPU µs/req: proxy | core | Redis | machine |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...[...byGenerator.wrk.values()].map((r) => {
        const autocannon = byGenerator.autocannon.get(r.scenario);
        return `| ${r.scenario} | ${autocannon === undefined ? '—' : Math.round(autocannon.rps)} | ${Math.round(r.rps)} | ${autocannon === undefined ? '—' : (r.rps / autocannon.rps).toFixed(2)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${count(r.unexpected)} | ${count(r.errors)} | ${micro(r.cpu.proxy)} | ${micro(r.cpu.core)} | ${micro(r.cpu.redis)} | ${micro(r.cpu.machine)} |`;
      }),
    );
  }
  const rowOf =
    (generator: Generator): RowOf =>
    (scenario) =>
      byGenerator[generator].get(scenario);
  const reloadFailures = workers?.reload?.runs.reduce((sum, r) => sum + failedRequests(r) + (r.primaryAlive ? 0 : 1), 0) ?? 0;
  const inexact = inexactQuietBursts(workers?.bursts);
  lines.push(
    '',
    '## Goals of the issue "Every core"',
    '',
    'Each scenario with WORKERS=2 ran in every round next to its twin with WORKERS=1 (the same gateway otherwise), the two in turn first; a figure is the median of the per-round ratios, from each load generator (wrk -t1 and autocannon share the two cores with the gateway and the core).',
    '',
    ...scalingLines(measurements, !run.quick),
    '',
    '### Requests failed during a SIGHUP reload under load (goal: 0)',
    '',
    ...reloadLines(workers?.reload),
    '',
    '### Exact bursts across workers, quiet and under the hog (goal: 20 of 20 each)',
    '',
    ...burstLines(workers?.bursts),
  );
  if (run.workersOnly !== true) {
    lines.push('', '## Goals of the issue "Shared limits at in-process cost"', '', ...costLines(measurements, !run.quick, run.tls));
    lines.push('', '## Goals of the issue "Exact limits at local speed"', '', ...figureTable(ISSUE_FIGURES, rowOf, limiter, !run.quick, 'not measured'));
    lines.push(
      '',
      '## Goals of the issue "Operable: metrics, traces and logs"',
      '',
      ...capacityLines(capacity, !run.quick),
      '',
      'The same comparisons as throughput of gateways loaded one after another (the scenarios above), for information only: on this machine two identical gateways measured that way differ by up to ~9 %.',
      '',
      ...figureTable(OBSERVABILITY_FIGURES, rowOf, limiter, !run.quick, 'not measured'),
    );
    lines.push('', '## Other ratios (goals of earlier issues, or none)', '', ...figureTable(OTHER_RATIOS, rowOf, limiter, !run.quick, '—'));
  }
  const latency = byGenerator.autocannon;
  const core = latency.get('latency-core-1000rps');
  for (const [name, what] of [
    ['latency-gateway-1000rps', 'limits in process'],
    ['latency-gateway-redis-1000rps', 'revocations and limits in Redis'],
  ] as const) {
    const gateway = latency.get(name);
    if (core === undefined || gateway === undefined) continue;
    lines.push(
      '',
      `Latency added by the full pipeline (${what}) at 1,000 req/s from one connection: p50 +${(gateway.p50 - core.p50).toFixed(2)} ms, p99 +${(gateway.p99 - core.p99).toFixed(2)} ms.`,
    );
  }
  if (limiter !== undefined) {
    lines.push(
      '',
      `Limiter, one process against a loopback Redis, over 1,000 accounts: **${Math.round(limiter.decisionsPerSecond)} decisions/s** with ${limiter.concurrency} in flight` +
        (limiter.oneBatchInFlight === undefined
          ? ''
          : `, ${Math.round(limiter.oneBatchInFlight.decisionsPerSecond)} with ${limiter.oneBatchInFlight.concurrency} (one batch at a time)`) +
        ` (${limiter.seconds} s each).`,
      `Redis memory per account (MEMORY USAGE of its counters): ${limiter.memory.oneRequest} B after one request, ${limiter.memory.typical} B for a steady client (a request every 5 s)${limiter.memory.typicalWithMonth === undefined ? '' : ` (${limiter.memory.typicalWithMonth} B on a plan with a monthly quota)`}, ${limiter.memory.worst} B with every bucket of both windows in use (goals ≤ 256 B typical, ≤ 2 KB worst).`,
    );
  }
  const flagged = rows.reduce((sum, r) => sum + r.unexpected + r.errors, 0);
  // Our own scenarios fail the run on any surprise; a reference (nginx, HAProxy, Fastify) is only flagged.
  const unexpected = rows.filter((r) => !r.reference).reduce((sum, r) => sum + r.unexpected + r.errors, 0);
  if (flagged > 0)
    lines.push('', `**${flagged} unexpected answers or socket errors** (${unexpected} in our own scenarios): see the JSON for the status counts.`);
  // A request failed during a reload and a burst that was not exact are the gateway's failures too.
  if (reloadFailures > 0) lines.push('', `**${reloadFailures} requests failed during the SIGHUP reload** (or the primary ended): see above.`);
  if (inexact > 0) lines.push('', `**${inexact} bursts on the quiet host were not exact**: see above.`);
  // The chart sets each scenario's wrk bar under its autocannon one.
  const chartRows = [...byGenerator.autocannon.values()].flatMap((row) => {
    const wrk = byGenerator.wrk.get(row.scenario);
    return wrk === undefined ? [row] : [row, { ...wrk, scenario: `${row.scenario} (wrk)` }];
  });
  const svg = renderChart(`Benchmark ${run.date}${run.quick ? ' (quick)' : ''}: medians, ${run.machine.cores} cores`, chartRows);
  return { markdown: `${lines.join('\n')}\n`, svg, unexpected: unexpected + reloadFailures + inexact };
}

/** A count, bold when not zero. */
function count(value: number): string {
  return value === 0 ? '0' : `**${value}**`;
}

/**
 * Figures against their goals, each generator's value and verdict side by side; `missing` stands
 * for a figure a generator could not give (a scenario skipped, or not run with wrk).
 */
function figureTable(
  figures: readonly Figure[],
  rowOf: (generator: Generator) => RowOf,
  limiter: LimiterFigures | undefined,
  judged: boolean,
  missing: string,
): string[] {
  const lines = ['| Figure | autocannon | verdict | wrk | verdict | goal |', '|---|---:|---|---:|---|---|'];
  for (const figure of figures) {
    // A figure from neither generator (the limiter) sits in the first column.
    const cells = (['autocannon', 'wrk'] as const).map((generator) => {
      const single = figure.generators.length === 0 && generator === 'autocannon';
      if (!single && !figure.generators.includes(generator)) return ['—', '—'];
      const value = figure.value(rowOf(generator), limiter);
      return value === undefined ? [missing, '—'] : [figure.format(value), verdict(figure, value, judged)];
    });
    lines.push(`| ${figure.label} | ${cells.map((cell) => cell.join(' | ')).join(' | ')} | ${goalText(figure)} |`);
  }
  return lines;
}
