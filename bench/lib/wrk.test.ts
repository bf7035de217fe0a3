import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseWrk, wrkMs } from './wrk.js';

// wrk 4.1's report with --latency, as printed for a run with refusals and socket errors (wrk pads
// a value in seconds with a trailing space).
const REPORT = `Running 3s test @ http://127.0.0.1:40000/v1/pets
  1 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     5.12ms    1.02ms  20.00ms   90.00%
    Req/Sec     9.80k   500.00    10.50k    80.00%
  Latency Distribution
     50%  472.00us
     75%    5.50ms
     90%    6.00ms
     99%    1.02s 
  29400 requests in 3.00s, 30.00MB read
  Socket errors: connect 1, read 2, write 3, timeout 4
  Non-2xx or 3xx responses: 12
Requests/sec:   9800.50
Transfer/sec:     10.00MB
`;

test('wrk durations in every unit it prints', () => {
  assert.equal(wrkMs('472.00us'), 0.472);
  assert.equal(wrkMs('5.50ms'), 5.5);
  assert.equal(wrkMs('1.02s'), 1020);
  assert.equal(wrkMs('1.00m'), 60_000);
  assert.throws(() => wrkMs('5.50'), /not a wrk duration/);
});

test("wrk's report: requests, req/s, p50 and p99, answers outside 2xx/3xx, socket errors", () => {
  const result = parseWrk(REPORT);
  assert.equal(result.requests, 29400);
  assert.equal(result.rps, 9800.5);
  assert.equal(result.p50, 0.472);
  assert.equal(result.p99, 1020);
  assert.deepEqual(result.statuses, { '2xx/3xx': 29388, other: 12 });
  assert.equal(result.errors, 6);
  assert.equal(result.timeouts, 4);
});

test('a clean run has no other answers and no errors; an unreadable report throws', () => {
  const clean = REPORT.replace(/^ {2}Socket errors.*\n/m, '').replace(/^ {2}Non-2xx.*\n/m, '');
  const result = parseWrk(clean);
  assert.deepEqual(result.statuses, { '2xx/3xx': 29400 });
  assert.equal(result.errors + result.timeouts, 0);
  assert.throws(() => parseWrk('unable to connect to 127.0.0.1:1 Connection refused'), /unreadable wrk output/);
});
