import { readFileSync } from 'node:fs';
import { readProcesses, treeOf } from './cpu.js';
import { runLoad, type LoadResult } from './load.js';
import type { Service } from './services.js';
import { runWrk, wrkSkipReason } from './wrk.js';

/**
 * The goal "requests failed during a SIGHUP reload under load: 0" of the issue "Every core": a
 * gateway with workers is loaded, and its primary is sent SIGHUP while the load runs; every
 * answer that is not a 200, and every socket error or timeout, is a failed request.
 */

/** Whether process `pid` catches `SIGHUP` (its SigCgt mask in /proc): one that does not would end on it. `undefined` off Linux. */
export function catchesSighup(pid: number): boolean | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  // SIGHUP is signal 1: the mask's lowest bit.
  return mask === undefined ? undefined : (BigInt(`0x${mask}`) & 1n) === 1n;
}

/** The pids of the processes of its own program under `pid` now (a primary's workers; not tsx's esbuild service). */
function workersOf(pid: number): number[] {
  const [root, ...rest] = treeOf(readProcesses(), pid);
  return rest.filter((entry) => entry.name === root?.name).map((entry) => entry.pid);
}

export interface ReloadRun {
  readonly generator: 'wrk' | 'autocannon';
  readonly requests: number;
  /** Answers other than 200 (wrk: outside 2xx/3xx). */
  readonly failedAnswers: number;
  readonly socketErrors: number;
  readonly timeouts: number;
  /** Workers before the signal, and how many of them were gone when the load ended. */
  readonly workersBefore: number;
  readonly replaced: number;
  /** Workers when the load ended. */
  readonly workersAfter: number;
  /** From the signal until every worker of before had gone and as many ran again; undefined if not within the load. */
  readonly reloadMs: number | undefined;
  /** Whether the primary was still running when the load ended. */
  readonly primaryAlive: boolean;
}

export interface ReloadFigures {
  /** Why it was not measured (a gateway that does not catch SIGHUP), when it was not. */
  readonly skipped?: string;
  /** The gateway reloaded, in words (its settings). */
  readonly gateway: string;
  readonly signalAfterSeconds: number;
  readonly tailSeconds: number;
  readonly maxSeconds: number;
  readonly connections: number;
  readonly runs: readonly ReloadRun[];
}

export interface ReloadOptions {
  /** The gateway: its `pid` is the primary. */
  readonly service: Service;
  /** Its settings, in words, for the report. */
  readonly gateway: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly connections: number;
  /** When, after the load starts, SIGHUP is sent. */
  readonly signalAfterSeconds: number;
  /** How long the load goes on once every worker was replaced. */
  readonly tailSeconds: number;
  /** The load ends after this many seconds even if the reload has not ended. */
  readonly maxSeconds: number;
}

/**
 * One run per load generator (wrk where installed, then autocannon), each with one SIGHUP to the
 * primary during the load, which goes on until every worker was replaced and `tailSeconds` more.
 * Skipped, with the reason, where the primary does not catch SIGHUP: the signal would end it (a
 * gateway from before the issue "Every core").
 */
export async function measureReload(options: ReloadOptions): Promise<ReloadFigures> {
  const { service, signalAfterSeconds, tailSeconds, maxSeconds, connections } = options;
  const pid = service.pid;
  const base = { gateway: options.gateway, signalAfterSeconds, tailSeconds, maxSeconds, connections, runs: [] as ReloadRun[] };
  if (pid === undefined) return { ...base, skipped: 'the gateway has no process id' };
  const catches = catchesSighup(pid);
  if (catches !== true)
    return { ...base, skipped: catches === undefined ? 'no /proc here' : 'the gateway does not catch SIGHUP (it would end): it has no reload' };
  const url = `${service.url}${options.path}`;
  const headers = options.headers ?? {};
  const loads: [ReloadRun['generator'], (stop: AbortSignal) => Promise<LoadResult>][] = [];
  if (wrkSkipReason() === false) loads.push(['wrk', (stop) => runWrk({ url, headers, connections, seconds: maxSeconds, stop })]);
  loads.push([
    'autocannon',
    (stop) => runLoad({ url, headers, settings: { connections, pipelining: 1, durationSeconds: maxSeconds, warmupSeconds: 0 }, stop }),
  ]);
  const workers = workersOf(pid).length;
  const runs: ReloadRun[] = [];
  for (const [generator, load] of loads) {
    // A reload that outlasted the previous load may still be going on: wait until it has ended.
    await settled(pid, workers, maxSeconds * 1000);
    runs.push(await reloadDuring(pid, load, options, generator));
  }
  return { ...base, runs };
}

/** Resolves once `pid` has `workers` workers, the same ones for 1 s, or after `timeoutMs`. */
async function settled(pid: number, workers: number, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last = '';
  let since = performance.now();
  while (performance.now() < deadline) {
    const now = workersOf(pid);
    const key = now.join(',');
    if (key !== last) [last, since] = [key, performance.now()];
    else if (now.length === workers && performance.now() - since >= 1000) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function reloadDuring(
  pid: number,
  load: (stop: AbortSignal) => Promise<LoadResult>,
  options: Pick<ReloadOptions, 'signalAfterSeconds' | 'tailSeconds'>,
  generator: ReloadRun['generator'],
): Promise<ReloadRun> {
  const before = workersOf(pid);
  const stop = new AbortController();
  let signalledAt: number | undefined;
  let reloadMs: number | undefined;
  let loading = true;
  // From the signal, watches the process tree every 50 ms until every worker of before has gone
  // and as many run again; then lets the load go on for the tail, and ends it.
  const watch = (async () => {
    await new Promise((resolve) => setTimeout(resolve, options.signalAfterSeconds * 1000));
    if (!loading) return;
    process.kill(pid, 'SIGHUP');
    signalledAt = performance.now();
    while (loading) {
      const now = workersOf(pid);
      if (before.every((worker) => !now.includes(worker)) && now.length >= before.length) {
        reloadMs = performance.now() - signalledAt;
        await new Promise((resolve) => setTimeout(resolve, options.tailSeconds * 1000));
        stop.abort();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const result = await load(stop.signal).finally(() => {
    loading = false;
  });
  await watch;
  const after = workersOf(pid);
  const failedAnswers = Object.entries(result.statuses)
    .filter(([code]) => code !== '200' && code !== '2xx/3xx')
    .reduce((sum, [, count]) => sum + count, 0);
  return {
    generator,
    requests: result.requests,
    failedAnswers,
    socketErrors: result.errors,
    timeouts: result.timeouts,
    workersBefore: before.length,
    replaced: before.filter((worker) => !after.includes(worker)).length,
    workersAfter: after.length,
    reloadMs,
    primaryAlive: isAlive(pid),
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
