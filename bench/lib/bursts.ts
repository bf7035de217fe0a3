import { isDeepStrictEqual } from 'node:util';
import { burst, startCpuHog, type BurstCounts, type CpuHog } from '@animal-store/testkit';
import { processCount } from './cpu.js';
import type { Service } from './services.js';

/**
 * The goal "exact bursts across workers, quiet and under the hog: 20 of 20" of the issue "Every
 * core": bursts of parallel requests, each on a fresh free key (60 a minute, the shipped plans),
 * to one gateway with WORKERS=2 and no Redis, whose connections the workers share; exact when
 * exactly 60 are admitted and every other answer is a 429. Then the same with every core kept busy
 * by testkit's CPU hog (the hostile suite's: six spinning processes a core).
 */

/** A burst's answers by status (0: no answer: a socket error or 60 s of silence). */
export type Counts = BurstCounts;

export interface BurstSeries {
  readonly hog: boolean;
  /** Spinning processes of the hog (0 when quiet). */
  readonly hogProcesses: number;
  readonly bursts: readonly { readonly counts: Counts; readonly ms: number }[];
  /** Bursts whose answers were exactly the expected ones. */
  readonly exact: number;
}

export interface BurstFigures {
  readonly requests: number;
  readonly limit: number;
  /** The gateway's processes when the bursts started (a primary and two workers: 3). */
  readonly processes: number | undefined;
  readonly series: readonly BurstSeries[];
}

export interface BurstOptions {
  readonly service: Service;
  /** Fresh free keys, one a burst: `bursts` for the quiet series and as many for the hog's. */
  readonly keys: readonly string[];
  readonly bursts: number;
  readonly requests: number;
  /** The plan's limit per minute (the shipped free plan: 60). */
  readonly limit: number;
  /** Called after each burst, to print it. */
  readonly onBurst?: (line: string) => void;
}

/** Words for the statuses a burst meets, in the order a line gives them. */
const MEANING: readonly [number, string][] = [
  [200, 'admitted (200)'],
  [429, 'refused by the limit (429)'],
  [408, 'timed out in the starved host (408)'],
  [504, 'timed out upstream (504)'],
  [0, 'without an answer'],
];

/**
 * One burst as a line to read, not a JSON object whose 408s look like failures: what each status
 * means, and whether the burst was exact. Under the hog a burst is reported only (an admitted
 * request may time out there); on the quiet host one that is not exact fails the run.
 */
export function burstLine(burst: {
  readonly index: number;
  readonly of: number;
  readonly hog: boolean;
  readonly counts: Counts;
  readonly ms: number;
  readonly limit: number;
  readonly requests: number;
}): string {
  const known = new Set(MEANING.map(([status]) => status));
  const parts = [
    ...MEANING.filter(([status]) => (burst.counts[status] ?? 0) > 0).map(([status, words]) => `${burst.counts[status]} ${words}`),
    ...Object.entries(burst.counts)
      .filter(([status, count]) => !known.has(Number(status)) && count > 0)
      .map(([status, count]) => `${count} answered ${status}`),
  ];
  const exact = isDeepStrictEqual(burst.counts, { 200: burst.limit, 429: burst.requests - burst.limit });
  const verdict = exact
    ? `exact (${burst.limit} admitted, the rest refused)`
    : burst.hog
      ? 'not exact, reported only: under the hog an admitted request may time out (goal: exact on the quiet host)'
      : `NOT exact: expected ${burst.limit} admitted and ${burst.requests - burst.limit} refused`;
  return `burst ${burst.index + 1} of ${burst.of}, ${burst.hog ? 'under the CPU hog' : 'quiet host'}: ${parts.join(', ')}: ${verdict}, in ${(burst.ms / 1000).toFixed(1)} s`;
}

/** The quiet series, then the one under the hog; each burst on a key of its own. */
export async function measureBursts(options: BurstOptions): Promise<BurstFigures> {
  if (options.keys.length < options.bursts * 2) throw new Error(`${options.bursts * 2} keys needed, ${options.keys.length} given`);
  const processes = options.service.pid === undefined ? undefined : processCount(options.service.pid);
  const series: BurstSeries[] = [];
  for (const hog of [false, true]) {
    let cpuHog: CpuHog | undefined;
    try {
      // Bounded: the hog ends by itself after 10 minutes, whatever happens here.
      if (hog) {
        cpuHog = startCpuHog({ maxMs: 600_000 });
        options.onBurst?.(`the CPU hog keeps every core busy now (${cpuHog.processes} spinning processes), until the bursts under it are done`);
      }
      const keys = options.keys.slice(hog ? options.bursts : 0, (hog ? 2 : 1) * options.bursts);
      const bursts: BurstSeries['bursts'][number][] = [];
      for (const [i, key] of keys.entries()) {
        const started = performance.now();
        // Each request on a connection of its own: one kept from an earlier burst could be closed by
        // the gateway's keep-alive timeout just as it is reused, which says nothing of the limits.
        const counts = await burst([options.service.url], options.requests, key, { path: '/v1/pets?limit=1', timeoutMs: 60_000 });
        const ms = performance.now() - started;
        bursts.push({ counts, ms });
        options.onBurst?.(burstLine({ index: i, of: keys.length, hog, counts, ms, limit: options.limit, requests: options.requests }));
      }
      const expected = { 200: options.limit, 429: options.requests - options.limit };
      series.push({ hog, hogProcesses: cpuHog?.processes ?? 0, bursts, exact: bursts.filter((b) => isDeepStrictEqual(b.counts, expected)).length });
    } finally {
      await cpuHog?.stop();
    }
  }
  return { requests: options.requests, limit: options.limit, processes, series };
}

/** The report's lines for the bursts figure. */
export function burstLines(figures: BurstFigures | undefined): string[] {
  if (figures === undefined) return ['Not measured in this run.'];
  const lines = [
    `Bursts of ${figures.requests.toLocaleString('en-US')} parallel requests (each on a connection of its own), each on a fresh free key (${figures.limit} a minute), to one gateway started with WORKERS=2 and no Redis (${figures.processes === undefined ? 'its processes not counted' : `${figures.processes} process${figures.processes === 1 ? '' : 'es'} at the start`}). Exact: exactly ${figures.limit} admitted, every other answer a 429.`,
    '',
    '| Series | exact bursts | goal | slowest burst | answers of the bursts not exact |',
    '|---|---:|---|---:|---|',
  ];
  const expected = { 200: figures.limit, 429: figures.requests - figures.limit };
  for (const series of figures.series) {
    const wrong = series.bursts.filter((b) => !isDeepStrictEqual(b.counts, expected)).map((b) => JSON.stringify(b.counts));
    const slowest = Math.max(...series.bursts.map((b) => b.ms));
    const exact = `${series.exact} of ${series.bursts.length}`;
    lines.push(
      `| ${series.hog ? `under the hog (${series.hogProcesses} spinning processes)` : 'quiet'} | ${series.exact === series.bursts.length ? exact : `**${exact}**`} | all | ${(slowest / 1000).toFixed(1)} s | ${wrong.length === 0 ? '—' : wrong.join(', ')} |`,
    );
  }
  const late = figures.series.some((series) => series.bursts.some((b) => Object.keys(b.counts).some((code) => ['0', '408', '504'].includes(code))));
  if (late)
    lines.push(
      '',
      'A 504 is an admitted request whose upstream did not answer in time; a 408, or no answer (0), a request the gateway did not receive whole in time: the host was too busy for the burst (see the load average above), which the bursts under the hog are meant to show.',
    );
  if (figures.processes === 1) lines.push('', '**The gateway ran as one process** (it has no workers): these bursts say nothing of exactness across workers.');
  return lines;
}

/**
 * Bursts of the quiet series that were not exact: these fail the run, as an unexpected status does.
 * Those under the hog are reported only: there a request may also time out (504, 408), which
 * depends on how busy the host is; the hostile suite asserts exactness under the hog.
 */
export function inexactQuietBursts(figures: BurstFigures | undefined): number {
  return figures?.series.filter((series) => !series.hog).reduce((sum, series) => sum + series.bursts.length - series.exact, 0) ?? 0;
}
