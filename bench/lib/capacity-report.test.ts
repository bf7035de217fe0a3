import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capacityLines } from './capacity-report.js';
import type { PairedResult } from './paired.js';
import { summarisePaired } from './paired-summary.js';

const sample = (cpuUsPerRequest: number) => ({ requests: 5000, rps: 1000, cpuUsPerRequest });
const result: PairedResult = {
  ...summarisePaired([{ off: sample(100), control: sample(101), metrics: sample(102), tracing: sample(125) }], 'off'),
  tool: 'wrk',
  connections: 25,
  rounds: 1,
  seconds: 5,
};

test('the observability goals are judged on the capacity ratios, the control shown without a goal', () => {
  const lines = capacityLines(result, true);
  const row = (label: string) => lines.find((line) => line.startsWith(`| ${label}`));
  assert.equal(
    row('full pipeline on Redis, metrics on'),
    '| full pipeline on Redis, metrics on (scraped every second) ÷ off | 0.980 | met | 0.980 | ≥ 0.970 |',
  );
  assert.equal(row('full pipeline on Redis, tracing'), '| full pipeline on Redis, tracing exported ÷ off | 0.800 | **missed** by 0.050 | 0.800 | ≥ 0.850 |');
  assert.equal(row('control'), "| control: a second gateway identical to off ÷ off (this run's noise) | 0.990 | — | 0.990 | — |");
  assert.match(lines[0] ?? '', /`wrk -t1` each \(25 connections, 5 s a pairing, 1 round\(s\) of every pairing/);
});

test('a quick run is not judged; no measurement is said so', () => {
  assert.ok(capacityLines(result, false).some((line) => line.includes('| 0.980 | not judged (--quick) | 0.980 |')));
  assert.match(capacityLines(undefined, true).join('\n'), /Not measured in this run/);
});
