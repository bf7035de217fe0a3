import { median } from './paired-summary.js';
import type { PairedResult } from './paired.js';

/**
 * One step of the request path, measured as the difference between two gateways of a paired run
 * (`with` minus `without`; `without` absent: the gateway's own figure).
 */
export interface Step {
  readonly step: string;
  readonly with: string;
  readonly without?: string;
  readonly what: string;
}

/** The steps `bench:steps` measures, from the gateways it starts. */
export const STEPS: readonly Step[] = [
  { step: 'proxy floor', with: 'floor', what: 'node:http in, an undici pool out, headers and body passed: what any proxy built so pays' },
  {
    step: 'the bare gateway’s own work',
    with: 'bare',
    without: 'floor',
    what: 'routing, canonical paths, header hygiene both ways, request id, timeouts, events, the access log',
  },
  { step: 'access log line', with: 'bare', without: 'no-log', what: 'one JSON line per request to stdout (pino), LOG_LEVEL=info against warn' },
  {
    step: 'key check, cached',
    with: 'keys',
    without: 'bare',
    what: 'Bearer parsing, SHA-256 of the key, cache lookup, revocation file checked (stat once per loop turn)',
  },
  { step: 'limits in process', with: 'limits-memory', without: 'keys', what: 'sliding windows of the plan, ban check, rate-limit headers' },
  { step: 'revocations in Redis instead of the file', with: 'keys-redis', without: 'keys', what: 'the deny-list asked in Redis, batched per loop turn' },
  {
    step: 'limits in Redis',
    with: 'limits-redis',
    without: 'keys-redis',
    what: 'the plan’s windows decided by the Redis script, batched per loop turn, rate-limit headers',
  },
  {
    step: 'layers in Redis: a month, a cost, a ceiling',
    with: 'layers-redis',
    without: 'limits-redis',
    what: 'the plan’s monthly quota and the operation’s cost and ceiling, decided in the same script call (issue 21)',
  },
  {
    step: 'limits in Redis instead of in process',
    with: 'limits-redis',
    without: 'limits-memory',
    what: 'what issue 40 bounds at 1.10× the in-process path: the script call (arguments encoded, written, the reply read, the batch) against the windows in process, revocations in Redis against the file',
  },
  { step: 'metrics', with: 'metrics', without: 'limits-redis', what: 'Prometheus histograms and counters per request, /metrics scraped every 15 s' },
  { step: 'tracing, one trace in ten', with: 'tracing-1-in-10', without: 'limits-redis', what: 'spans for one request in ten, exported over OTLP/HTTP' },
];

export interface StepCostRun {
  readonly rounds: number;
  /** Who sends the requests: one account, or a spread of many (`--accounts`). */
  readonly accounts?: string;
  readonly seconds: number;
  readonly machine: Readonly<Record<string, unknown>>;
  /** A paired run with baseline `bare`, holding every gateway the steps name and `control`. */
  readonly paired: PairedResult;
}

/**
 * Each gateway's CPU µs per request above the bare one's, from the same seconds: in each round,
 * its figure minus bare's, and the median of those.
 */
export function overBare(paired: PairedResult): Map<string, number> {
  const over = new Map<string, number>();
  for (const gateway of paired.gateways) {
    if (gateway.name === paired.baseline) {
      over.set(gateway.name, 0);
      continue;
    }
    // capacityRatioByRound[i] is bare's CPU per request ÷ this one's, in round i.
    over.set(gateway.name, median(gateway.rounds.map((sample, i) => sample.cpuUsPerRequest * (1 - (gateway.capacityRatioByRound[i] as number)))));
  }
  return over;
}

const fixed = (value: number) => (Math.abs(value) < 0.05 ? '0.0' : value.toFixed(1));

/** The steps' costs as a Markdown table and as data. */
export function stepCostReport(run: StepCostRun): { text: string; json: unknown } {
  const over = overBare(run.paired);
  const bare = run.paired.gateways.find((gateway) => gateway.name === run.paired.baseline);
  if (bare === undefined) throw new Error('no bare gateway in the run');
  const figure = (name: string): number => {
    const value = over.get(name);
    if (value === undefined) throw new Error(`no gateway ${name} in the run`);
    return bare.cpuUsPerRequest + value;
  };
  const costs = STEPS.map((step) => ({ ...step, cpuUs: figure(step.with) - (step.without === undefined ? 0 : figure(step.without)) }));
  const lines = [
    `# What each step of the request path costs`,
    '',
    `${run.rounds} rounds × ${run.seconds} s a pairing, ${run.accounts ?? 'one account'}, ${run.paired.tool} with ${run.paired.connections} connections per gateway, each gateway loaded together with the bare one; Node ${String(run.machine.node)}, ${String(run.machine.cores)} × ${String(run.machine.cpu)}, load average at start ${JSON.stringify(run.machine.loadavgAtStart)}.`,
    '',
    `The bare gateway: ${bare.cpuUsPerRequest.toFixed(1)} CPU µs per request (median). Control (a second bare gateway) minus bare: ${fixed(over.get('control') ?? Number.NaN)} µs, the resolution of this run.`,
    '',
    '| step | CPU µs/request | measured as | what it does |',
    '|---|---:|---|---|',
    ...costs.map((cost) => `| ${cost.step} | ${fixed(cost.cpuUs)} | ${cost.with}${cost.without === undefined ? '' : ` − ${cost.without}`} | ${cost.what} |`),
    '',
  ];
  return { text: lines.join('\n'), json: { ...run, costs, overBare: Object.fromEntries(over) } };
}
