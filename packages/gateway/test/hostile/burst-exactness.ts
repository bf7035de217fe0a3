import { freePort, startCpuHog, type BurstCounts, type CpuHog } from '@animal-store/testkit';
import { burstOnStack, startStack, type Stack } from './stack.js';

/** What a burst is checked against: the plan's minute limit and the answers expected. */
const PLANS = { free: 60, business: 1000 } as const;

/** A burst's answers by status (0: no answer at all). */
export type Counts = BurstCounts;

export interface ExactnessOptions {
  /** `RATE_LIMIT_ON_REDIS_FAILURE` of both gateways. */
  readonly policy: 'local' | 'closed';
  /** Keep every core busy with spinning processes from before the gateways start to the end. */
  readonly hog: boolean;
  /** Bursts after the first one (each on fresh accounts). */
  readonly repetitions: number;
  /** Requests in each burst, spread over the two gateways. */
  readonly requests: number;
  /** Extra settings of both gateways (the old budget, to see the tests fail with it). */
  readonly env?: Record<string, string>;
  /** Called with each burst's outcome as it ends, for the test's log. */
  readonly report?: (line: string) => void;
}

export interface BurstOutcome {
  readonly plan: keyof typeof PLANS;
  readonly limit: number;
  readonly counts: Counts;
  /** What was expected: the limit admitted, every other request a 429. */
  readonly expected: Counts;
}

/**
 * Starts Redis, the core and two fresh gateway processes with default settings (but the failure
 * policy), then sends bursts of parallel requests on one key, half to each gateway: the first as
 * soon as both say ready (script, connections and code all cold), then `repetitions` more, each on
 * a fresh account, alternating a business key (1,000 a minute) and a free key (60). With `hog`,
 * every core is kept busy by other processes from before the gateways start until the end, and
 * the hog ends by itself after 10 minutes at most.
 * Returns each burst's answers beside what exactness expects; the caller asserts.
 */
export async function burstsOnFreshGateways(options: ExactnessOptions): Promise<BurstOutcome[]> {
  let hog: CpuHog | undefined;
  let stack: Stack | undefined;
  try {
    if (options.hog) hog = startCpuHog({ maxMs: 600_000 });
    const metricsPorts = [await freePort(), await freePort()];
    stack = await startStack({
      gateways: 2,
      env: { RATE_LIMIT_ON_REDIS_FAILURE: options.policy, ...options.env },
      perGatewayEnv: (i) => ({ METRICS_PORT: String(metricsPorts[i]) }),
    });
    const outcomes: BurstOutcome[] = [];
    for (let i = 0; i <= options.repetitions; i++) {
      const plan = i % 2 === 0 ? 'business' : 'free';
      const limit = PLANS[plan];
      const { token } = await stack.keyring.issue({ plan, sub: `exact-${options.policy}-${options.hog ? 'hog' : 'quiet'}-${i}` });
      const started = performance.now();
      const counts = await burstOnStack(stack, options.requests, token);
      const expected = { 200: limit, 429: options.requests - limit };
      outcomes.push({ plan, limit, counts, expected });
      options.report?.(
        `${i === 0 ? 'first burst' : `repetition ${i}`}, ${plan} (${limit}): ${JSON.stringify(counts)} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    }
    for (const port of metricsPorts) options.report?.(`gateway on metrics port ${port}: ${await slowScriptCalls(port)}`);
    return outcomes;
  } finally {
    await stack?.close();
    await hog?.stop();
  }
}

/**
 * How the rate-limit script's round trips were spread, from the gateway's histogram: the count
 * in each bucket up to the slowest, so a run shows how late a healthy Redis's replies came.
 */
async function slowScriptCalls(metricsPort: number): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const buckets = [...text.matchAll(/^gateway_redis_command_duration_seconds_bucket\{command="rateLimit",ok="(true|false)",le="([^"]+)"\} (\d+)$/gm)];
  const parts: string[] = [];
  for (const ok of ['true', 'false']) {
    const rows = buckets.filter((match) => match[1] === ok).map((match) => [match[2] as string, Number(match[3])] as const);
    const total = rows.at(-1)?.[1] ?? 0;
    if (total === 0) continue;
    // The first bucket that holds every call: the slowest call took at most that long.
    const all = rows.find(([, count]) => count === total)?.[0];
    const over50 = total - (rows.find(([le]) => le === '0.05')?.[1] ?? 0);
    parts.push(`${total} script calls ${ok === 'true' ? 'answered' : 'failed'}, ${over50} over 50 ms, all within ${all} s`);
  }
  return parts.join('; ') || 'no script call';
}
