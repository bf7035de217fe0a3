import { cpuMsOf } from './cpu.js';
import { runLoad, type LoadResult } from './load.js';
import { sampleOf, summarisePaired, unexpectedAnswers, type PairedFigures, type RoundSample } from './paired-summary.js';
import type { Service } from './services.js';
import { runWrk, wrkSkipReason } from './wrk.js';

/**
 * A paired measurement: gateways loaded at the same time, each by its own load generator, and
 * compared by the CPU their processes used per request. On a shared, noisy machine two identical
 * gateway processes loaded one after another differ by up to ~9 % in throughput; loaded together,
 * every disturbance of the host hits all of them at once, and CPU per request does not depend on
 * how the cores were shared between them (identical gateways come within about 1 %).
 */

export interface PairedGateway {
  readonly name: string;
  readonly service: Service;
  /** Runs `load` with what the gateway needs around it (the metrics one is scraped every second). */
  readonly whileLoaded?: (load: () => Promise<LoadResult>) => Promise<LoadResult>;
}

export interface PairedOptions {
  readonly gateways: readonly PairedGateway[];
  /** The name of the gateway every other is compared with. */
  readonly baseline: string;
  /** The request, as `/v1/pets`, sent to every gateway with `headers`. */
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly rounds: number;
  /** Whole seconds per round (wrk reads its duration as an integer). */
  readonly seconds: number;
  /** One round first, not counted, of this many seconds (0: none). */
  readonly warmupSeconds?: number;
  /** Connections per gateway. */
  readonly connections?: number;
  /** Called after each counted round (to print it). */
  readonly onRound?: (round: number, samples: Readonly<Record<string, RoundSample>>) => void;
}

export interface PairedResult extends PairedFigures {
  /** wrk where it is installed (one `wrk -t1` per gateway), else autocannon in this process. */
  readonly tool: 'wrk' | 'autocannon';
  readonly connections: number;
  readonly rounds: number;
  readonly seconds: number;
}

/** Connections per gateway: with four gateways, 100 in all, as the sequential runs' 50 twice. */
export const PAIRED_CONNECTIONS = 25;

/** Why a paired measurement cannot run here (no /proc), or `false` when it can. */
export function pairedSkipReason(): string | false {
  return cpuMsOf([process.pid]) === undefined ? 'no per-process CPU time here (Linux /proc): no paired measurement' : false;
}

/**
 * Loads every gateway of `options` at once, `options.rounds` times, and returns each one's
 * medians and its ratios to the baseline. Throws if any answer was not a 200.
 */
export async function measurePaired(options: PairedOptions): Promise<PairedResult> {
  const tool = wrkSkipReason() === false ? 'wrk' : 'autocannon';
  const connections = options.connections ?? PAIRED_CONNECTIONS;
  const load = (url: string, seconds: number): Promise<LoadResult> =>
    tool === 'wrk'
      ? runWrk({ url, headers: options.headers ?? {}, connections, seconds })
      : runLoad({ url, headers: options.headers ?? {}, settings: { connections, pipelining: 1, durationSeconds: seconds, warmupSeconds: 0 } });
  /** Every gateway loaded at once for `seconds`. */
  const loadAll = (seconds: number) =>
    Promise.all(options.gateways.map((gateway) => loadOne(gateway, () => load(`${gateway.service.url}${options.path}`, seconds))));
  // The warm-up's answers are checked, its figures dropped: a cold gateway may answer next to none.
  if ((options.warmupSeconds ?? 0) > 0) await loadAll(options.warmupSeconds as number);
  const round = async (seconds: number): Promise<Record<string, RoundSample>> => {
    const loads = await loadAll(seconds);
    return Object.fromEntries(
      options.gateways.map((gateway, i) => {
        const { result, cpuMs } = loads[i] as { result: LoadResult; cpuMs: number };
        if (result.requests === 0) throw new Error(`${gateway.name}: no request answered in a ${seconds} s round`);
        return [gateway.name, sampleOf(result, cpuMs)];
      }),
    );
  };
  const rounds: Record<string, RoundSample>[] = [];
  for (let i = 1; i <= options.rounds; i++) {
    const samples = await round(options.seconds);
    rounds.push(samples);
    options.onRound?.(i, samples);
  }
  return { ...summarisePaired(rounds, options.baseline), tool, connections, rounds: options.rounds, seconds: options.seconds };
}

/** One gateway's load in a round, and the CPU its process used from just before to just after. */
async function loadOne(gateway: PairedGateway, load: () => Promise<LoadResult>): Promise<{ result: LoadResult; cpuMs: number }> {
  const pid = gateway.service.pid;
  if (pid === undefined) throw new Error(`${gateway.name}: no process id`);
  const before = cpuMsOf([pid]);
  const result = await (gateway.whileLoaded ?? ((run) => run()))(load);
  const after = cpuMsOf([pid]);
  if (before === undefined || after === undefined) throw new Error(`${gateway.name}: CPU time of pid ${pid} unreadable`);
  const unexpected = unexpectedAnswers(result);
  if (unexpected !== undefined) throw new Error(`${gateway.name}: not every answer was a 200: ${unexpected}`);
  return { result, cpuMs: after - before };
}
