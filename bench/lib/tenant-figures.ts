import { SPREADS, spreadsFor, type AccountSpread, type SpreadName } from './accounts.js';
import { requestsPerScriptCall } from './cost-figures.js';
import type { Generator, Measurement } from './measurements.js';
import { roundRatio, roundValue, type RoundFigure, type RoundRuns } from './round-figures.js';
import { goalText, verdict } from './figures.js';

/*
 * Issue 40, "Many accounts at the cost of one": the figures of issue 31 for each spread of
 * accounts, judged on 2,000 accounts (uniform, under the lease threshold, so every request is
 * decided in Redis), and what Redis does per request in every scenario on Redis.
 */

const ratio = (value: number) => value.toFixed(2);
const micro = (value: number) => `${value.toFixed(1)} µs`;
const whole = (value: number) => Math.round(value).toLocaleString('en-US');
const rps = (run: Measurement) => run.result.rps;
const proxyCpu = (run: Measurement) => run.cpu.proxy;

/** Redis's CPU µs per request from its own counters (`INFO cpu`), else from /proc. */
export function redisCpuPerRequest(run: Measurement): number | undefined {
  if (run.redis !== undefined && run.result.requests > 0) return run.redis.cpuUsec / run.result.requests;
  return run.cpu.redis;
}

/** µs Redis spent inside the script per request (`INFO commandstats`). */
export function scriptUsPerRequest(run: Measurement): number | undefined {
  return run.redis === undefined || run.result.requests === 0 ? undefined : run.redis.scriptUsec / run.result.requests;
}

/** Gateway requests a second that one Redis core kept busy would serve at this cost: 1,000,000 ÷ Redis CPU µs per request. */
export function requestsPerRedisCore(run: Measurement): number | undefined {
  const cpu = redisCpuPerRequest(run);
  return cpu === undefined || cpu <= 0 ? undefined : 1_000_000 / cpu;
}

const of =
  (scenario: string, reading: (run: Measurement) => number | undefined) =>
  (runs: RoundRuns): number | undefined => {
    const run = runs(scenario);
    return run === undefined ? undefined : reading(run);
  };

/** The figures of issue 40 for `spread`, the goals on the spread they are judged on (2,000 uniform). */
export function tenantFigures(spread: AccountSpread): RoundFigure[] {
  const name = (scenario: string) => `${scenario}${spread.suffix}`;
  const redis = name('gateway-limits-redis');
  const judged = spread.name === 'uniform';
  const goal = (at: 'least' | 'most', target: number) => (judged ? { goal: { at, target } } : {});
  return [
    {
      label: 'full on Redis ÷ HAProxy jwt_verify + stick table, req/s',
      value: roundRatio(redis, name('haproxy-jwt-stick-table'), rps),
      ...goal('least', 0.8),
      format: ratio,
    },
    { label: 'full on Redis ÷ our bare, req/s', value: roundRatio(redis, name('gateway-bare'), rps), ...goal('least', 0.75), format: ratio },
    { label: 'full on Redis ÷ the Fastify stack, req/s', value: roundRatio(redis, name('fastify-stack'), rps), ...goal('least', 2.5), format: ratio },
    {
      label: 'gateway CPU µs/request, full on Redis ÷ full in process',
      value: roundRatio(redis, name('gateway-limits-memory'), proxyCpu),
      ...goal('most', 1.1),
      format: ratio,
    },
    {
      label: "Redis CPU µs/request (INFO cpu) ÷ the core's",
      value: of(redis, (run) => {
        const [cpu, core] = [redisCpuPerRequest(run), run.cpu.core];
        return cpu === undefined || core === undefined || core <= 0 ? undefined : cpu / core;
      }),
      ...goal('most', 0.35),
      format: ratio,
    },
    { label: 'Redis CPU µs/request, full on Redis (INFO cpu)', value: of(redis, redisCpuPerRequest), ...goal('most', 12), format: micro },
    { label: 'µs in the script per request (INFO commandstats)', value: of(redis, scriptUsPerRequest), format: micro },
    { label: 'requests per script call', value: of(redis, requestsPerScriptCall), format: (value) => value.toFixed(1) },
    { label: 'gateway requests/s one Redis core serves (1,000,000 ÷ Redis CPU µs/request)', value: of(redis, requestsPerRedisCore), format: whole },
    { label: 'gateway CPU µs/request, full on Redis', value: of(redis, proxyCpu), format: micro },
    // For information: workers and TLS with the same accounts.
    {
      label: 'full on Redis, WORKERS=2 ÷ HAProxy nbthread 2, req/s',
      value: roundRatio(name('gateway-limits-redis-workers-2'), name('haproxy-jwt-stick-table-nbthread-2'), rps),
      format: ratio,
    },
    {
      label: 'full on Redis, CPU µs/request summed over the processes, WORKERS=2 ÷ WORKERS=1',
      value: roundRatio(name('gateway-limits-redis-workers-2'), redis, proxyCpu),
      format: ratio,
    },
    {
      label: 'full on Redis ÷ HAProxy, both over TLS, req/s',
      value: roundRatio(name('gateway-limits-redis-tls'), name('haproxy-jwt-stick-table-tls'), rps),
      format: ratio,
    },
  ];
}

/** The section's table: each figure from one generator, one column per spread measured, the verdict on the judged one. */
export function tenantTable(measurements: readonly Measurement[], spreads: readonly AccountSpread[], generator: Generator, judged: boolean): string[] {
  const columns = spreads.map((spread) => ({ spread, figures: tenantFigures(spread) }));
  const lines = [
    `| Figure (${generator}, median of the rounds) | ${spreads.map((spread) => spread.label).join(' | ')} | verdict (2,000 uniform) | goal |`,
    `|---|${spreads.map(() => '---:|').join('')}---|---|`,
  ];
  const labels = tenantFigures(SPREADS.uniform);
  labels.forEach((judgedFigure, i) => {
    const cells = columns.map(({ figures }) => {
      const value = roundValue(measurements, figures[i] as RoundFigure, generator);
      return value === undefined ? '—' : judgedFigure.format(value.median);
    });
    const uniform = roundValue(measurements, judgedFigure, generator);
    lines.push(`| ${judgedFigure.label} | ${cells.join(' | ')} | ${verdict(judgedFigure, uniform?.median, judged)} | ${goalText(judgedFigure)} |`);
  });
  return lines;
}

/** Requests per script call, Redis CPU and script µs per request, and requests per Redis core, for every scenario on Redis: medians (autocannon / wrk). */
export function redisLines(measurements: readonly Measurement[]): string[] {
  const scenarios = [...new Set(measurements.filter((m) => m.redis !== undefined).map((m) => m.scenario))];
  if (scenarios.length === 0) return ['Not measured: no scenario on Redis ran.'];
  const cell = (scenario: string, reading: (run: Measurement) => number | undefined, format: (value: number) => string) =>
    (['autocannon', 'wrk'] as const)
      .map((generator) => roundValue(measurements, { value: of(scenario, reading) }, generator))
      .map((value) => (value === undefined ? '—' : format(value.median)))
      .join(' / ');
  return [
    '| Scenario on Redis (autocannon / wrk) | requests per script call | Redis CPU µs/request (INFO cpu) | µs in the script per request | gateway requests/s per Redis core |',
    '|---|---:|---:|---:|---:|',
    ...scenarios.map(
      (scenario) =>
        `| ${scenario} | ${cell(scenario, requestsPerScriptCall, (v) => v.toFixed(1))} | ${cell(scenario, redisCpuPerRequest, (v) => v.toFixed(1))} | ${cell(scenario, scriptUsPerRequest, (v) => v.toFixed(1))} | ${cell(scenario, requestsPerRedisCore, whole)} |`,
    ),
  ];
}

/** The report's section of issue 40, first in it: the figures with each spread of accounts, judged on 2,000 uniform, and Redis per request. */
export function tenantSection(measurements: readonly Measurement[], quick: boolean, spreadNames: readonly SpreadName[] = ['one']): string[] {
  const table = spreadsFor(quick);
  const spreads = spreadNames.map((name) => table[name]);
  return [
    '',
    '## Many accounts: the goals of issue 40',
    '',
    `Each throughput scenario ran with ${spreads.map((spread) => spread.label).join('; ')}; a scenario's name carries its spread (\`@2000-uniform\`, \`@100k-zipf\`), none for one account. Each figure is the median of its per-round values; the goals are judged on 2,000 accounts.`,
    '',
    ...(['wrk', 'autocannon'] as const).flatMap((generator) => [...tenantTable(measurements, spreads, generator, !quick), '']),
    ...redisLines(measurements),
  ];
}
