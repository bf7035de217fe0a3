import type { LoadResult } from './load.js';

/**
 * The arithmetic of a paired measurement (`paired.ts`), kept free of processes and timers so it
 * can be tested: one round's sample per gateway, the medians over rounds, the ratios to a baseline.
 */

/** One gateway's figures in one round: what it answered, and the CPU its process used for them. */
export interface RoundSample {
  readonly requests: number;
  readonly rps: number;
  /** CPU µs the gateway's process used per request answered. */
  readonly cpuUsPerRequest: number;
}

export interface PairedGatewayFigures {
  readonly name: string;
  /** Medians over the rounds. */
  readonly cpuUsPerRequest: number;
  readonly rps: number;
  /**
   * The judged figure: in each round, the baseline's CPU µs per request ÷ this one's (both from
   * the same seconds), and the median of those. Requests served per CPU-second, relative.
   */
  readonly capacityRatio: number;
  /** The baseline's median CPU µs per request ÷ this one's (for information: medians of different rounds). */
  readonly ratioOfMedians: number;
  /** This one's median req/s ÷ the baseline's (for information: the gateways share the cores). */
  readonly rpsRatio: number;
  /** The baseline's CPU µs per request ÷ this one's in each round. */
  readonly capacityRatioByRound: readonly number[];
  readonly rounds: readonly RoundSample[];
}

export interface PairedFigures {
  readonly baseline: string;
  readonly gateways: readonly PairedGatewayFigures[];
}

/** The median of `values` (the mean of the middle two when even); throws when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** A round's sample from a load's result and the CPU ms the gateway used during it. */
export function sampleOf(result: Pick<LoadResult, 'requests' | 'rps'>, cpuMs: number): RoundSample {
  if (result.requests === 0) throw new Error('no request answered');
  return { requests: result.requests, rps: result.rps, cpuUsPerRequest: (cpuMs * 1000) / result.requests };
}

/**
 * Medians per gateway over `rounds` (each round a sample per gateway name), and each gateway's
 * ratios to `baseline`'s medians. Every round must hold every gateway.
 */
export function summarisePaired(rounds: readonly Readonly<Record<string, RoundSample>>[], baseline: string): PairedFigures {
  const first = rounds[0];
  if (first === undefined) throw new Error('no rounds');
  const names = Object.keys(first);
  if (!names.includes(baseline)) throw new Error(`no baseline ${baseline} among ${names.join(', ')}`);
  const samplesOf = (name: string): RoundSample[] =>
    rounds.map((round, i) => {
      const sample = round[name];
      if (sample === undefined) throw new Error(`round ${i + 1} has no sample of ${name}`);
      return sample;
    });
  const medians = new Map(
    names.map((name) => {
      const samples = samplesOf(name);
      return [name, { samples, cpu: median(samples.map((s) => s.cpuUsPerRequest)), rps: median(samples.map((s) => s.rps)) }];
    }),
  );
  const base = medians.get(baseline) as { samples: RoundSample[]; cpu: number; rps: number };
  return {
    baseline,
    gateways: [...medians].map(([name, { samples, cpu, rps }]) => {
      // Per round, both from the same seconds: a drift of the host over the rounds cancels out.
      const byRound = samples.map((sample, i) => (base.samples[i] as RoundSample).cpuUsPerRequest / sample.cpuUsPerRequest);
      return {
        name,
        cpuUsPerRequest: cpu,
        rps,
        capacityRatio: median(byRound),
        ratioOfMedians: base.cpu / cpu,
        rpsRatio: rps / base.rps,
        capacityRatioByRound: byRound,
        rounds: samples,
      };
    }),
  };
}

/**
 * The figures of pairings: each gateway other than `baseline` was loaded together with it, round
 * after round (`byGateway`: its rounds, each holding its sample and the baseline's of the same
 * seconds). Each is compared with the baseline of its own pairings; the baseline's own medians
 * pool all of its samples.
 */
export function summarisePairings(byGateway: ReadonlyMap<string, readonly Readonly<Record<string, RoundSample>>[]>, baseline: string): PairedFigures {
  const all = [...byGateway.values()].flat();
  const pooled = summarisePaired(
    all.map((round, i) => {
      const sample = round[baseline];
      if (sample === undefined) throw new Error(`pairing round ${i + 1} has no sample of ${baseline}`);
      return { [baseline]: sample };
    }),
    baseline,
  );
  const others = [...byGateway].map(([name, rounds]) => {
    const figures = summarisePaired(rounds, baseline).gateways.find((g) => g.name === name);
    if (figures === undefined) throw new Error(`no sample of ${name} in its pairings`);
    return figures;
  });
  return { baseline, gateways: [...pooled.gateways, ...others] };
}

/**
 * What in `result` was not a 200, as text, or `undefined` when every answer was. wrk only counts
 * answers outside 2xx/3xx (its `2xx/3xx` class); autocannon gives each status.
 */
export function unexpectedAnswers(result: Pick<LoadResult, 'statuses' | 'errors' | 'timeouts'>): string | undefined {
  const other = Object.entries(result.statuses).filter(([status, count]) => count > 0 && status !== '200' && status !== '2xx/3xx');
  if (other.length === 0 && result.errors === 0 && result.timeouts === 0) return undefined;
  return `statuses ${JSON.stringify(result.statuses)}, ${result.errors} socket errors, ${result.timeouts} timeouts`;
}

/** One round as a line: each gateway's req/s and CPU µs per request. */
export function roundLine(round: number, samples: Readonly<Record<string, RoundSample>>): string {
  const cells = Object.entries(samples).map(([name, s]) => `${name} ${Math.round(s.rps)} req/s ${s.cpuUsPerRequest.toFixed(1)} µs/req`);
  return `round ${round}: ${cells.join(', ')}`;
}
