import assert from 'node:assert/strict';
import { test } from 'node:test';
import { roundOrder, type PlanEntry } from '../scenarios/plan.js';
import { byLabel, measured } from './measurement-fixture.js';
import type { Measurement } from './measurements.js';
import { processesOf, SCALING_FIGURES, scalingLines, scalingValue } from './scaling.js';
import type { Scenario } from './scenario.js';

const entry = (name: string, group?: PlanEntry['group'], repeat = true): PlanEntry => ({
  scenario: { name } as Scenario,
  repeat,
  ...(group === undefined ? {} : { group }),
});

test('a group runs in the reverse order every other round; the rest keeps its order; a scenario not repeated runs in the first round only', () => {
  const plan = [
    entry('core', undefined, false),
    entry('a'),
    entry('bare-1', 'bare'),
    entry('bare-2', 'bare'),
    entry('b'),
    entry('r-1', 'redis'),
    entry('r-2', 'redis'),
    entry('r-3', 'redis'),
  ];
  const names = (round: number) => roundOrder(plan, round).map((e) => e.scenario.name);
  assert.deepEqual(names(1), ['core', 'a', 'bare-1', 'bare-2', 'b', 'r-1', 'r-2', 'r-3']);
  assert.deepEqual(names(2), ['a', 'bare-2', 'bare-1', 'b', 'r-3', 'r-2', 'r-1']);
  assert.deepEqual(names(3), ['a', 'bare-1', 'bare-2', 'b', 'r-1', 'r-2', 'r-3']);
});

const run = (
  scenario: string,
  round: number,
  rps: number,
  proxy: number | undefined,
  generator: Measurement['generator'] = 'wrk',
  processes = 3,
): Measurement => measured(scenario, round, rps, { generator, cpu: { proxy, proxyProcesses: { start: processes, end: processes } } });
const figure = (label: string) => byLabel(SCALING_FIGURES, label);

test('a scaling figure is the median of the per-round ratios, not the ratio of the medians', () => {
  // Round 2's one-worker run was disturbed: the ratio of medians would read 13,000 ÷ 10,000 = 1.30.
  const measurements = [
    run('gateway-bare', 1, 10_000, 100, 'wrk', 1),
    run('gateway-bare-workers-2', 1, 12_000, 105),
    run('gateway-bare', 2, 6_000, 100, 'wrk', 1),
    run('gateway-bare-workers-2', 2, 13_000, 105),
    run('gateway-bare', 3, 11_000, 100, 'wrk', 1),
    run('gateway-bare-workers-2', 3, 14_000, 105),
    run('gateway-bare', 1, 9_000, 100, 'autocannon', 1),
  ];
  const bare = figure('bare, WORKERS=2 ÷ WORKERS=1, req/s');
  const value = scalingValue(measurements, bare, 'wrk');
  assert.deepEqual(
    value?.byRound.map((r) => r.toFixed(3)),
    ['1.200', '2.167', '1.273'],
  );
  assert.equal(value?.median.toFixed(3), '1.273');
  // autocannon ran the one-worker gateway only: no figure from it.
  assert.equal(scalingValue(measurements, bare, 'autocannon'), undefined);
  assert.equal(scalingValue(measurements, figure('bare: CPU µs/request, WORKERS=2 ÷ WORKERS=1'), 'wrk')?.median, 1.05);
  assert.equal(processesOf(measurements, 'gateway-bare-workers-2'), '3');
  assert.equal(processesOf(measurements, 'gateway-bare'), '1');
});

test('a gateway started with two workers that ran as one process is said so in the report', () => {
  const single = [run('gateway-bare', 1, 10_000, 100, 'wrk', 1), run('gateway-bare-workers-2', 1, 10_100, 100, 'wrk', 1)];
  assert.ok(scalingLines(single, true).some((line) => line.includes('ran as one process')));
  const two = [run('gateway-bare', 1, 10_000, 100, 'wrk', 1), run('gateway-bare-workers-2', 1, 13_000, 100)];
  const lines = scalingLines(two, true);
  assert.ok(!lines.some((line) => line.includes('ran as one process')));
  assert.ok(lines.some((line) => line.startsWith('| bare, WORKERS=2 ÷ WORKERS=1, req/s | not measured | — | 1.30 | met | ≥ 1.25 |')));
});
