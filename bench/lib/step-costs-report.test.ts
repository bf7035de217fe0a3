import assert from 'node:assert/strict';
import { test } from 'node:test';
import { summarisePairings, type RoundSample } from './paired-summary.js';
import { overBare, STEPS, stepCostReport } from './step-costs-report.js';

const sample = (cpuUsPerRequest: number): RoundSample => ({ requests: 10_000, rps: 2000, cpuUsPerRequest });

/** A paired run where bare reads `bare[i]` in round i and each gateway sits `above` µs over it in every round. */
function run(bare: readonly number[], above: Readonly<Record<string, number>>) {
  const pairings = new Map(Object.entries(above).map(([name, over]) => [name, bare.map((cpu) => ({ bare: sample(cpu), [name]: sample(cpu + over) }))]));
  return { ...summarisePairings(pairings, 'bare'), tool: 'wrk' as const, connections: 25, rounds: bare.length, seconds: 5 };
}

test('each gateway over bare is the median of its per-round differences, whatever bare read in each round', () => {
  const over = overBare(run([100, 140, 90], { control: 0, keys: 20 }));
  assert.equal(over.get('bare'), 0);
  assert.ok(Math.abs((over.get('control') as number) - 0) < 1e-9);
  assert.ok(Math.abs((over.get('keys') as number) - 20) < 1e-9);
});

test('a step costs the difference between the gateways it names; the floor is its own figure', () => {
  const above = {
    control: 0,
    floor: -60,
    'no-log': -10,
    keys: 20,
    'limits-memory': 35,
    'keys-redis': 25,
    'limits-redis': 50,
    'layers-redis': 53,
    metrics: 52,
    'tracing-1-in-10': 55,
  };
  const report = stepCostReport({ rounds: 2, seconds: 5, machine: {}, paired: run([100, 100], above) });
  const row = (step: string) => new RegExp(`\\| ${step} \\| ([\\d.-]+) \\|`).exec(report.text)?.[1];
  assert.equal(row('proxy floor'), '40.0');
  assert.equal(row('the bare gateway’s own work'), '60.0');
  assert.equal(row('access log line'), '10.0');
  assert.equal(row('key check, cached'), '20.0');
  assert.equal(row('limits in process'), '15.0');
  assert.equal(row('limits in Redis'), '25.0');
  assert.equal(row('layers in Redis: a month, a cost, a ceiling'), '3.0');
  assert.equal(row('limits in Redis instead of in process'), '15.0');
  assert.equal(row('metrics'), '2.0');
  assert.equal(row('tracing, one trace in ten'), '5.0');
  assert.equal(STEPS.length, 11);
});

test('a run without a gateway a step needs says which', () => {
  assert.throws(() => stepCostReport({ rounds: 1, seconds: 5, machine: {}, paired: run([100], { control: 0 }) }), /no gateway floor/);
});
