import type { Measurement } from './measurements.js';
import { roundRatio, roundTable, roundValue, type RoundFigure, type RoundRuns } from './round-figures.js';

/*
 * The goals of issue 31, "Shared limits at in-process cost": what one request costs on one core,
 * each figure taken round by round and the median of the rounds (`round-figures.ts`), as the issue
 * measured them; and one figure with TLS. Its observability goals are judged on the paired
 * measurement (`paired.ts`), not here.
 */

const ratio = (value: number) => value.toFixed(2);
const micro = (value: number) => `${value.toFixed(1)} µs`;
const whole = (value: number) => Math.round(value).toLocaleString('en-US');
const rps = (run: Measurement) => run.result.rps;
const proxyCpu = (run: Measurement) => run.cpu.proxy;

/**
 * Requests per second per core of the proxy: its req/s ÷ the CPU-seconds a second its processes
 * used (a gateway's worker and primary, HAProxy's threads). Both come from the same run, so this
 * is the requests it answered ÷ the CPU-seconds it used, 1,000,000 ÷ its CPU µs per request: what
 * one core kept busy would serve at that cost, whatever share of the two cores it had.
 */
export function perCore(run: Measurement): number | undefined {
  const cpu = run.cpu.proxy;
  return cpu === undefined || cpu <= 0 ? undefined : 1_000_000 / cpu;
}

/** The requests answered during a run ÷ the script calls Redis ran during it; `undefined` where none were counted. */
export function requestsPerScriptCall(run: Measurement): number | undefined {
  return run.scriptCalls === undefined || run.scriptCalls <= 0 ? undefined : run.result.requests / run.scriptCalls;
}

/** `reading` of `scenario`'s run in the round. */
function of(scenario: string, reading: (run: Measurement) => number | undefined): (runs: RoundRuns) => number | undefined {
  return (runs) => {
    const run = runs(scenario);
    return run === undefined ? undefined : reading(run);
  };
}

const REDIS = 'gateway-limits-redis';

export const COST_FIGURES: readonly RoundFigure[] = [
  {
    label: 'full on Redis ÷ HAProxy jwt_verify + stick table, req/s, one core each',
    value: roundRatio(REDIS, 'haproxy-jwt-stick-table', rps),
    goal: { at: 'least', target: 1.0 },
    format: ratio,
  },
  { label: 'full on Redis ÷ our bare, req/s', value: roundRatio(REDIS, 'gateway-bare', rps), goal: { at: 'least', target: 0.85 }, format: ratio },
  { label: 'full on Redis ÷ Fastify stack, req/s', value: roundRatio(REDIS, 'fastify-stack', rps), goal: { at: 'least', target: 3 }, format: ratio },
  {
    label: 'gateway CPU µs/request, full on Redis ÷ full in process',
    value: roundRatio(REDIS, 'gateway-limits-memory', proxyCpu),
    goal: { at: 'most', target: 1.05 },
    format: ratio,
  },
  {
    label: "Redis CPU µs/request ÷ the core's, full on Redis",
    value: of(REDIS, (run) => (run.cpu.redis === undefined || run.cpu.core === undefined || run.cpu.core <= 0 ? undefined : run.cpu.redis / run.cpu.core)),
    goal: { at: 'most', target: 0.3 },
    format: ratio,
  },
  // For information: what the last goal is made of.
  {
    label: 'requests per script call, full on Redis (INFO commandstats: FCALL + EVALSHA + EVAL)',
    value: of(REDIS, requestsPerScriptCall),
    format: (value) => value.toFixed(1),
  },
  { label: 'Redis CPU µs/request, full on Redis', value: of(REDIS, (run) => run.cpu.redis), format: micro },
  // One figure with TLS: one core each, the same certificate.
  {
    label: "full on Redis over TLS: req/s per core (req/s ÷ the gateway's CPU-seconds a second)",
    value: of('gateway-limits-redis-tls', perCore),
    format: whole,
  },
  {
    label: "HAProxy jwt_verify + stick table over TLS: req/s per core (÷ HAProxy's CPU-seconds a second)",
    value: of('haproxy-jwt-stick-table-tls', perCore),
    format: whole,
  },
  {
    label: 'full on Redis ÷ HAProxy jwt_verify + stick table, both over TLS, req/s',
    value: roundRatio('gateway-limits-redis-tls', 'haproxy-jwt-stick-table-tls', rps),
    format: ratio,
  },
  { label: 'full on Redis, over TLS ÷ without, req/s', value: roundRatio('gateway-limits-redis-tls', REDIS, rps), format: ratio },
  {
    label: 'HAProxy jwt_verify + stick table, over TLS ÷ without, req/s',
    value: roundRatio('haproxy-jwt-stick-table-tls', 'haproxy-jwt-stick-table', rps),
    format: ratio,
  },
];

/**
 * Kong's published figure for key-auth and local rate limits over HTTPS, set beside the TLS rows:
 * its machine and method, not ours. From developer.konghq.com/gateway/performance/benchmarks
 * (Kong Gateway 3.10, "Rate limit and key auth", 1 Route, 1 Consumer) and its test suite's
 * rate-limiting plugin (`policy: local`, Kong/kong-gateway-performance-benchmark).
 */
export const KONG_PUBLISHED = { version: '3.10', rps: 97_208.2, vcpus: 16, instance: 'c5.4xlarge' } as const;

/** The report's section: the goals' table, the script calls of every scenario on Redis, and what the TLS rows are. */
export function costLines(measurements: readonly Measurement[], judged: boolean, tls: Readonly<Record<string, string>> = {}): string[] {
  /** The median of `scenario`'s requests per script call by `generator`; `no call` where its runs made none (revocations alone). */
  const perCall = (scenario: string, generator: Measurement['generator']) => {
    const value = roundValue(measurements, { value: of(scenario, requestsPerScriptCall) }, generator);
    if (value !== undefined) return value.median.toFixed(1);
    return measurements.some((m) => m.scenario === scenario && m.generator === generator && m.scriptCalls === 0) ? 'no call' : '—';
  };
  const counted = [...new Set(measurements.filter((m) => m.scriptCalls !== undefined).map((m) => m.scenario))].map(
    (scenario) => `${scenario} ${perCall(scenario, 'autocannon')} / ${perCall(scenario, 'wrk')}`,
  );
  const kong = KONG_PUBLISHED;
  const negotiated = Object.entries(tls).map(([scenario, session]) => `${scenario} ${session}`);
  return [
    'Each figure is taken in every round from the runs of that round, and the median of the rounds is given, from each load generator (the issue measured with wrk). Its observability goals are judged on the paired measurement (the section of the issue "Operable").',
    '',
    ...roundTable(COST_FIGURES, measurements, judged),
    '',
    `Requests per script call: the requests answered during a run ÷ the FCALL, EVALSHA and EVAL calls Redis ran during it (\`INFO commandstats\`, read before and after the run; the other gateways on that Redis are idle then). In every scenario on Redis, the median over the rounds (autocannon / wrk): ${counted.length === 0 ? 'not measured' : counted.join(', ')}.`,
    '',
    `Over TLS, the gateway (WORKERS=1: a worker and its primary) and HAProxy (nbthread 1) terminate TLS with the same self-signed ECDSA P-256 certificate; autocannon and wrk keep their connections alive, as everywhere here, so a run pays one handshake per connection and every request its encryption${negotiated.length === 0 ? '' : ` (agreed with a Node client, as autocannon's: ${negotiated.join('; ')})`}. req/s per core is the proxy's req/s ÷ the CPU-seconds a second all its processes used, that is 1,000,000 ÷ its CPU µs per request: what one core kept busy would serve.`,
    '',
    `Kong publishes ${whole(kong.rps)} req/s for key-auth and rate limiting (\`policy: local\`, one route, one consumer) over HTTPS, Kong Gateway ${kong.version} on a dedicated ${kong.instance} (${kong.vcpus} vCPU, ${kong.vcpus} workers), k6 on other machines, the average of five 15-minute runs: ${whole(kong.rps / kong.vcpus)} req/s per vCPU (developer.konghq.com/gateway/performance/benchmarks). That is their machine and their method, throughput ÷ the node's vCPUs, and their key-auth looks a static key up where the gateway verifies a signed key (once, then cached) and asks Redis for its revocation and limits; this is ours, throughput ÷ the CPU the proxy used, on a shared 2-core VM: set beside, not divided.`,
  ];
}
