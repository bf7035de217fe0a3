import assert from 'node:assert/strict';
import { test } from 'node:test';
import { preface } from './preface.js';

// Issue 39, point 3.11: `npm run bench -- --quick` was said to take 2–3 minutes and took 7 min 38 s,
// and it kept every core busy with a CPU hog without a word. What it does and how long it takes is
// printed before anything starts.

test('the preface says what the run does, that it keeps every core busy, and how long it takes, before it starts', () => {
  const quick = preface({ quick: true, workersOnly: false, cores: 2 });
  assert.match(quick, /^npm run bench -- --quick: /);
  assert.match(quick, /every core busy .*CPU hog.* \(12 spinning processes here\)/s);
  assert.match(quick, /about 4 to 8 minutes on 2 cores/);
  const full = preface({ quick: false, workersOnly: false, cores: 2 });
  assert.match(full, /about 10 to 25 minutes on 2 cores/);
  assert.match(preface({ quick: true, workersOnly: true, cores: 4 }), /--workers --quick: .*about 2 to 4 minutes on 2 cores/s);
  assert.match(full, /ports on 127\.0\.0\.1/);
});
