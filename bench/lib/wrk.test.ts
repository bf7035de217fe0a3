import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { runLoad } from './load.js';
import { parseWrk, runWrk, wrkMs, wrkSkipReason } from './wrk.js';

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

/** A server answering 200 on loopback, for the generators to load. */
async function withServer(use: (url: string) => Promise<void>): Promise<void> {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

// The reload (reload.ts) ends its load once the workers were replaced: a run of 60 s stopped after
// a moment must end then with what it measured (the test's timeout is far below the 60 s).
test('wrk stopped early reports what it measured so far', { skip: wrkSkipReason(), timeout: 20_000 }, async () => {
  await withServer(async (url) => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 1500);
    const result = await runWrk({ url, connections: 2, seconds: 60, stop: stop.signal });
    assert.ok(result.requests > 0);
    assert.deepEqual(result.statuses, { '2xx/3xx': result.requests });
  });
});

test('autocannon stopped early reports what it measured so far', { timeout: 20_000 }, async () => {
  await withServer(async (url) => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 1500);
    const result = await runLoad({ url, settings: { connections: 2, pipelining: 1, durationSeconds: 60, warmupSeconds: 0 }, stop: stop.signal });
    assert.ok(result.requests > 0);
    assert.deepEqual(result.statuses, { 200: result.requests });
  });
});
