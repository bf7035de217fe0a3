import assert from 'node:assert/strict';
import { test } from 'node:test';
import { comparisonReport, type PathComparison } from './compare-report.js';
import { summarisePairings, type RoundSample } from './paired-summary.js';

const sample = (cpuUsPerRequest: number): RoundSample => ({ requests: 10_000, rps: 2000, cpuUsPerRequest });

/** One path's pairings: ref with control, ref with work, in two rounds. */
function path(name: string, ref: number, control: number, work: number): PathComparison {
  const pairings = new Map([
    [
      'control',
      [
        { ref: sample(ref), control: sample(control) },
        { ref: sample(ref), control: sample(control) },
      ],
    ],
    [
      'work',
      [
        { ref: sample(ref), work: sample(work) },
        { ref: sample(ref), work: sample(work) },
      ],
    ],
  ]);
  return { path: name, description: `${name} path`, paired: { ...summarisePairings(pairings, 'ref'), tool: 'wrk', connections: 25, rounds: 2, seconds: 5 } };
}

test('the comparison gives each path its CPU per request, as a multiple of the core, and the ratios to ref', () => {
  const report = comparisonReport({
    ref: 'main',
    commit: 'a'.repeat(40),
    work: 'abc-dirty',
    rounds: 2,
    seconds: 5,
    machine: { node: 'v22', cores: 2, cpu: 'test', loadavgAtStart: [0, 0, 0] },
    coreCpuUsPerRequest: 50,
    results: [path('bare', 200, 202, 160), path('redis', 400, 400, 200)],
  });
  // work is cheaper than ref: 200 / 160 = 1.25 the capacity; the control reads 200 / 202.
  assert.match(report.text, /\| bare \| 200\.0 \| 160\.0 \| 4\.00 \| 3\.20 \| 2000 \| 2000 \| 1\.250 \| 0\.990 \|/);
  assert.match(report.text, /\| redis \| 400\.0 \| 200\.0 \| 8\.00 \| 4\.00 \| 2000 \| 2000 \| 2\.000 \| 1\.000 \|/);
  // Each checkout's full path against its own bare one: 200 / 400 and 160 / 200.
  assert.match(report.text, /\| redis \| 0\.500 \| 0\.800 \|/);
  assert.match(report.text, /50\.0 CPU µs per request/);
});

test('a comparison without the bare path has no row of ratios to it', () => {
  const report = comparisonReport({
    ref: 'main',
    commit: 'b'.repeat(40),
    work: 'abc',
    rounds: 2,
    seconds: 5,
    machine: {},
    coreCpuUsPerRequest: 50,
    results: [path('memory', 300, 300, 300)],
  });
  assert.doesNotMatch(report.text, /÷ bare/);
});

test("each gateway's processes are told, and that work's figure holds its primary's", () => {
  const report = comparisonReport({
    ref: '008c8f5',
    commit: 'c'.repeat(40),
    work: 'abc',
    rounds: 2,
    seconds: 5,
    machine: {},
    coreCpuUsPerRequest: 50,
    results: [{ ...path('bare', 200, 200, 210), processes: { ref: 1, control: 1, work: 2 } }],
  });
  assert.match(report.text, /Processes of each, once started \(bare: ref 1, control 1, work 2\)/);
  assert.match(report.text, /the primary's cost is in work's figure/);
});

test('with many accounts, each full path is divided by the bare path of the same spread', () => {
  const report = comparisonReport({
    ref: 'main',
    commit: 'a'.repeat(40),
    work: 'abc',
    rounds: 2,
    seconds: 5,
    machine: { node: 'v22', cores: 2, cpu: 'test', loadavgAtStart: [0, 0, 0] },
    coreCpuUsPerRequest: 50,
    results: [path('bare', 200, 200, 200), path('redis', 400, 400, 250), path('bare@2000-uniform', 250, 250, 250), path('redis@2000-uniform', 500, 500, 400)],
  });
  assert.match(report.text, /\| redis \| 0\.500 \| 0\.800 \|/);
  assert.match(report.text, /\| redis@2000-uniform \| 0\.500 \| 0\.625 \|/);
  assert.doesNotMatch(report.text, /\| bare@2000-uniform \| 0\./);
});
