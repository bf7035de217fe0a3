import assert from 'node:assert/strict';
import { test } from 'node:test';
import { burstLine } from './bursts.js';

// Issue 39, point 3.11: burst lines printed `{"200":51,"408":61,...}`, which read as failures.

test('a burst line says what the statuses mean, and whether the burst was exact', () => {
  const exact = { 200: 60, 429: 2940 };
  assert.equal(
    burstLine({ index: 0, of: 2, hog: false, counts: exact, ms: 1234, limit: 60, requests: 3000 }),
    'burst 1 of 2, quiet host: 60 admitted (200), 2940 refused by the limit (429): exact (60 admitted, the rest refused), in 1.2 s',
  );
  assert.equal(
    burstLine({ index: 1, of: 2, hog: true, counts: { 200: 51, 408: 61, 429: 2887, 0: 1 }, ms: 9000, limit: 60, requests: 3000 }),
    'burst 2 of 2, under the CPU hog: 51 admitted (200), 2887 refused by the limit (429), 61 timed out in the starved host (408), 1 without an answer: ' +
      'not exact, reported only: under the hog an admitted request may time out (goal: exact on the quiet host), in 9.0 s',
  );
  assert.match(
    burstLine({ index: 0, of: 1, hog: false, counts: { 200: 61, 429: 2939 }, ms: 1000, limit: 60, requests: 3000 }),
    /: NOT exact: expected 60 admitted and 2940 refused/,
  );
  assert.doesNotMatch(burstLine({ index: 0, of: 1, hog: true, counts: exact, ms: 1, limit: 60, requests: 3000 }), /\{"/);
});
