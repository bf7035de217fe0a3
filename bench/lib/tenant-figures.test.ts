import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SPREADS } from './accounts.js';
import { byLabel, measured } from './measurement-fixture.js';
import type { Measurement } from './measurements.js';
import { roundValue } from './round-figures.js';
import { redisCpuPerRequest, redisLines, requestsPerRedisCore, tenantFigures, tenantSection } from './tenant-figures.js';
import { planFor, spreadPlan } from '../scenarios/plan.js';

/** A wrk run of 3 s at `rps` on Redis: `calls` script calls, `scriptUs` µs in them and `cpuUs` of Redis CPU per request. */
const onRedis = (scenario: string, round: number, rps: number, calls: number, scriptUs: number, cpuUs: number, core = 40): Measurement => {
  const run = measured(scenario, round, rps, { cpu: { core, redis: 999 }, scriptCalls: calls });
  return { ...run, redis: { scriptCalls: calls, scriptUsec: scriptUs * rps * 3, cpuUsec: cpuUs * rps * 3 } };
};

test("Redis per request comes from its own counters (INFO cpu), else from /proc; a core's requests/s is 1,000,000 ÷ it", () => {
  const run = onRedis('gateway-limits-redis@2000-uniform', 1, 1000, 600, 20, 28);
  assert.equal(redisCpuPerRequest(run), 28);
  assert.equal(requestsPerRedisCore(run)?.toFixed(0), '35714');
  assert.equal(redisCpuPerRequest(measured('x', 1, 1000, { cpu: { redis: 5 } })), 5);
  assert.equal(requestsPerRedisCore(measured('x', 1, 1000)), undefined);
});

test('the goals are judged on 2,000 uniform accounts, from the runs of that spread; other spreads give the same figures without goals', () => {
  const uniform = tenantFigures(SPREADS.uniform);
  const measurements = [
    ...[1, 2, 3].map((round) => onRedis('gateway-limits-redis@2000-uniform', round, 4600 + round * 100, 1000, 20, 28)),
    ...[1, 2, 3].map((round) => measured('haproxy-jwt-stick-table@2000-uniform', round, 10_000)),
    onRedis('gateway-limits-redis', 1, 8000, 140, 2, 5),
    measured('haproxy-jwt-stick-table', 1, 10_000),
  ];
  const haproxy = byLabel(uniform, 'full on Redis ÷ HAProxy jwt_verify + stick table, req/s');
  assert.deepEqual(haproxy.goal, { at: 'least', target: 0.8 });
  assert.equal(roundValue(measurements, haproxy, 'wrk')?.median.toFixed(2), '0.48');
  const one = byLabel(tenantFigures(SPREADS.one), 'full on Redis ÷ HAProxy jwt_verify + stick table, req/s');
  assert.equal(one.goal, undefined);
  assert.equal(roundValue(measurements, one, 'wrk')?.median.toFixed(2), '0.80');
  const perCall = byLabel(uniform, 'requests per script call');
  assert.equal(roundValue(measurements, perCall, 'wrk')?.median.toFixed(1), '14.4');
  const share = byLabel(uniform, "Redis CPU µs/request (INFO cpu) ÷ the core's");
  assert.equal(roundValue(measurements, share, 'wrk')?.median.toFixed(2), '0.70');
  const workers = byLabel(uniform, 'full on Redis, WORKERS=2 ÷ HAProxy nbthread 2, req/s');
  assert.equal(workers.goal, undefined);
  const twins = [measured('gateway-limits-redis-workers-2@2000-uniform', 1, 6000), measured('haproxy-jwt-stick-table-nbthread-2@2000-uniform', 1, 12_000)];
  assert.equal(roundValue(twins, workers, 'wrk')?.median, 0.5);
  const section = tenantSection(measurements, false, ['one', 'uniform']).join('\n');
  assert.match(section, /\| full on Redis ÷ HAProxy jwt_verify \+ stick table, req\/s \| 0\.80 \| 0\.48 \| \*\*missed\*\* by 0\.32 \| ≥ 0\.80 \|/);
  assert.match(section, /\| Redis CPU µs\/request, full on Redis \(INFO cpu\) \| 5\.0 µs \| 28\.0 µs \| \*\*missed\*\* by 16\.0 µs \| ≤ 12\.0 µs \|/);
});

test('every scenario on Redis gets its requests per call, Redis and script µs per request, and requests per Redis core', () => {
  const lines = redisLines([onRedis('gateway-limits-redis@100k-zipf', 1, 1000, 200, 10, 16), measured('gateway-bare', 1, 9000)]);
  assert.deepEqual(lines.slice(2), ['| gateway-limits-redis@100k-zipf | — / 15.0 | — / 16.0 | — / 10.0 | — / 62,500 |']);
  assert.deepEqual(redisLines([measured('gateway-bare', 1, 9000)]), ['Not measured: no scenario on Redis ran.']);
});

test("a spread's plan names each scenario with its suffix and its groups apart from one account's; --scenarios keeps the named ones", () => {
  const uniform = spreadPlan(SPREADS.uniform);
  assert.ok(uniform.some((entry) => entry.scenario.name === 'gateway-limits-redis@2000-uniform' && entry.group === 'redis@2000-uniform'));
  assert.ok(uniform.some((entry) => entry.scenario.name === 'fastify-stack@2000-uniform' && entry.group === undefined));
  const only = planFor([SPREADS.one, SPREADS.zipf], ['gateway-limits-redis']).map((entry) => entry.scenario.name);
  assert.deepEqual(only, ['gateway-limits-redis', 'gateway-limits-redis@100k-zipf']);
  assert.throws(() => planFor([SPREADS.one], ['gateway-limit-redis']), /no scenario gateway-limit-redis/);
});
