import { cpuMsOf } from './cpu.js';
import type { KeyRotation } from './key-files.js';
import { runLoad, type LoadResult } from './load.js';
import { sampleOf, summarisePairings, unexpectedAnswers, type PairedFigures, type RoundSample } from './paired-summary.js';
import type { Service } from './services.js';
import { runWrk, wrkSkipReason } from './wrk.js';

/**
 * A paired measurement: each gateway loaded at the same time as the baseline, each by its own load
 * generator, and the two compared by the CPU their processes used per request. On a shared, noisy
 * machine two identical gateway processes loaded one after another differ by up to ~9 % in
 * throughput; loaded together, every disturbance of the host hits both at once, and CPU per
 * request does not depend on how the cores were shared between them (identical gateways come
 * within about 1 %). Two at a time, not all at once: with five gateways and five load generators
 * on two cores, every process's CPU per request doubled.
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
  /** A key per request from a spread of many accounts (issue 40), instead of one in `headers`. */
  readonly keys?: KeyRotation;
  readonly rounds: number;
  /** Whole seconds per round (wrk reads its duration as an integer). */
  readonly seconds: number;
  /** One round first, not counted, of this many seconds (0: none). */
  readonly warmupSeconds?: number;
  /** Before each pairing, this many seconds of the same load, not counted (default 2; 0: none). */
  readonly pairingWarmupSeconds?: number;
  /** Connections per gateway. */
  readonly connections?: number;
  /** Called after each counted pairing of a round (to print it). */
  readonly onRound?: (round: number, samples: Readonly<Record<string, RoundSample>>) => void;
}

export interface PairedResult extends PairedFigures {
  /** wrk where it is installed (one `wrk -t1` per gateway), else autocannon in this process. */
  readonly tool: 'wrk' | 'autocannon';
  readonly connections: number;
  readonly rounds: number;
  readonly seconds: number;
}

/** Connections per gateway: 25 each, so a pairing holds 50 in all, as one sequential run does. */
export const PAIRED_CONNECTIONS = 25;

/** Why a paired measurement cannot run here (no /proc), or `false` when it can. */
export function pairedSkipReason(): string | false {
  return cpuMsOf([process.pid]) === undefined ? 'no per-process CPU time here (Linux /proc): no paired measurement' : false;
}

/**
 * In each of `options.rounds` rounds, loads every other gateway of `options` together with the
 * baseline, one pairing after another (their order turning each round), and returns each one's
 * medians and its ratios to the baseline. Throws if any answer was not a 200.
 */
export async function measurePaired(options: PairedOptions): Promise<PairedResult> {
  const tool = wrkSkipReason() === false ? 'wrk' : 'autocannon';
  const connections = options.connections ?? PAIRED_CONNECTIONS;
  const keys = options.keys;
  const load = (url: string, seconds: number): Promise<LoadResult> =>
    tool === 'wrk'
      ? runWrk({ url, headers: options.headers ?? {}, connections, seconds, ...(keys === undefined ? {} : { keys }) })
      : runLoad({
          url,
          headers: options.headers ?? {},
          settings: { connections, pipelining: 1, durationSeconds: seconds, warmupSeconds: 0 },
          ...(keys === undefined ? {} : { authorization: keys.next }),
        });
  const baseline = options.gateways.find((gateway) => gateway.name === options.baseline);
  if (baseline === undefined) throw new Error(`no baseline ${options.baseline} among the gateways`);
  const others = options.gateways.filter((gateway) => gateway !== baseline);
  /** The gateways loaded at once for `seconds`. */
  const loadTogether = async (gateways: readonly PairedGateway[], seconds: number): Promise<Record<string, RoundSample>> => {
    const loads = await Promise.all(gateways.map((gateway) => loadOne(gateway, () => load(`${gateway.service.url}${options.path}`, seconds))));
    return Object.fromEntries(
      gateways.map((gateway, i) => {
        const { result, cpuMs } = loads[i] as { result: LoadResult; cpuMs: number };
        if (result.requests === 0) throw new Error(`${gateway.name}: no request answered in a ${seconds} s round`);
        return [gateway.name, sampleOf(result, cpuMs)];
      }),
    );
  };
  // The warm-up's answers are checked, its figures dropped: a cold gateway may answer next to none.
  if ((options.warmupSeconds ?? 0) > 0) await loadTogether(options.gateways, options.warmupSeconds as number);
  const pairingWarmup = options.pairingWarmupSeconds ?? 2;
  const pairings = new Map<string, Record<string, RoundSample>[]>(others.map((gateway) => [gateway.name, []]));
  for (let i = 1; i <= options.rounds; i++) {
    for (let j = 0; j < others.length; j++) {
      const other = others[(i + j) % others.length] as PairedGateway;
      // The baseline is loaded in every pairing, the other only in its own: left idle meanwhile, it
      // would start each pairing colder than the baseline (its control read 0.89 to 0.97 so).
      if (pairingWarmup > 0) await loadTogether([baseline, other], pairingWarmup);
      const samples = await loadTogether([baseline, other], options.seconds);
      pairings.get(other.name)?.push(samples);
      options.onRound?.(i, samples);
    }
  }
  return { ...summarisePairings(pairings, options.baseline), tool, connections, rounds: options.rounds, seconds: options.seconds };
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
