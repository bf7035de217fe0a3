import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goalText, ISSUE_FIGURES, verdict, type FigureRow } from './figures.js';

const row = (rps: number, extra: Partial<FigureRow> = {}): FigureRow => ({
  rps,
  p50: 0,
  p99: 0,
  cpu: { proxy: undefined, core: undefined, redis: undefined, machine: undefined },
  ...extra,
});
const figure = (label: string) => {
  const found = ISSUE_FIGURES.find((f) => f.label === label);
  assert.ok(found, label);
  return found;
};

test('a throughput ratio is computed from the rows, and judged against its goal', () => {
  const bare = figure('full pipeline on Redis ÷ gateway bare');
  const rows = new Map([
    ['gateway-limits-redis', row(800)],
    ['gateway-bare', row(1000)],
  ]);
  const value = bare.value((scenario) => rows.get(scenario), undefined);
  assert.equal(value, 0.8);
  assert.equal(verdict(bare, value, true), 'met');
  assert.equal(verdict(bare, 0.7, true), '**missed** by 0.10');
  assert.equal(verdict(bare, 0.7, false), 'not judged (--quick)');
  assert.equal(goalText(bare), '≥ 0.80');
});

test('a skipped scenario gives no value; an upper bound is met at or below it', () => {
  const fastify = figure('full pipeline on Redis ÷ Fastify stack');
  assert.equal(
    fastify.value(() => undefined, undefined),
    undefined,
  );
  assert.equal(verdict(fastify, undefined, true), '—');
  const redisCpu = figure('Redis CPU per request, full pipeline on Redis');
  const cpu = { proxy: 75, core: 40, redis: 9, machine: 300 };
  assert.equal(
    redisCpu.value(() => row(1, { cpu }), undefined),
    9,
  );
  assert.equal(verdict(redisCpu, 8, true), 'met');
  assert.equal(verdict(redisCpu, 9, true), '**missed** by 1.0 µs');
  assert.equal(goalText(redisCpu), '≤ 8.0 µs');
});

test('the p99 added is the gateway over the core; the limiter figure comes from the limiter', () => {
  const added = figure('p99 added at 1,000 req/s, one connection, full pipeline on Redis');
  const rows = new Map([
    ['latency-gateway-redis-1000rps', row(1000, { p99: 1.75 })],
    ['latency-core-1000rps', row(1000, { p99: 0.5 })],
  ]);
  assert.equal(
    added.value((scenario) => rows.get(scenario), undefined),
    1.25,
  );
  assert.equal(verdict(added, 1.25, true), '**missed** by +0.25 ms');
  const limiter = figure('limiter decisions/s, one process, one Redis');
  const figures = { decisionsPerSecond: 151_000, concurrency: 64, seconds: 5, memory: { oneRequest: 0, typical: 0, worst: 0 } };
  assert.equal(
    limiter.value(() => undefined, figures),
    151_000,
  );
  assert.equal(verdict(limiter, 151_000, true), 'met');
  assert.equal(goalText(limiter), '≥ 150,000');
});
