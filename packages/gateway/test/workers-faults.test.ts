import assert from 'node:assert/strict';
import { test } from 'node:test';
import { processRuns, PROXY_TEST_PATHS, requestOnFreshConnection, startGatewayProcess, startRecordingUpstream, writeDocument } from './support/index.js';

// Issue 30, point 4: a worker that dies is replaced while the others serve; SIGTERM drains every
// worker; a crash loop stops the gateway.

test('kill -9 of a worker under steady traffic: the other keeps answering, a new worker takes its place, the log names the dead one', async () => {
  const upstream = await startRecordingUpstream();
  const gateway = await startGatewayProcess({ AUTH: 'off', RATE_LIMITS: 'off', UPSTREAM_URL: upstream.url, OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS) });
  const [victim, survivor] = gateway.workerPids as [number, number];
  let stop = false;
  const outcomes: { at: number; ok: boolean; detail: string }[] = [];
  // Steady traffic: one request after another, each on a connection of its own.
  const traffic = (async () => {
    while (!stop) {
      const at = gateway.records().length;
      await requestOnFreshConnection(`${gateway.url}/v1/echo`, { timeoutMs: 5000 }).then(
        (answer) => outcomes.push({ at, ok: answer.status === 200, detail: String(answer.status) }),
        (error: Error) => outcomes.push({ at, ok: false, detail: error.message }),
      );
    }
  })();
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(victim, 'SIGKILL');
    const died = await gateway.waitForRecord((record) => /^worker \d+ died/.test(String(record.msg)));
    const diedAt = gateway.records().findIndex((record) => record.msg === died.msg);
    const replaced = await gateway.waitForRecord((record) => record.msg === 'worker replaced', 30_000);
    const replacedAt = gateway.records().findIndex((record) => record.msg === 'worker replaced');
    // Some traffic once the new worker is in.
    const more = outcomes.length + 20;
    while (outcomes.length < more) await new Promise((resolve) => setTimeout(resolve, 20));
    stop = true;
    await traffic;

    console.log(`# ${outcomes.length} requests, failed: ${JSON.stringify(outcomes.filter((outcome) => !outcome.ok))}`);
    assert.equal(died.pid, victim);
    assert.equal(died.signal, 'SIGKILL');
    assert.match(String(died.msg), /^worker \d+ died \(SIGKILL\); starting another$/);
    assert.ok(processRuns(survivor), 'the other worker was left alone');
    assert.ok(processRuns(replaced.pid as number) && replaced.pid !== victim);
    const after = outcomes.filter((outcome) => outcome.at > diedAt);
    assert.ok(after.length > 0);
    assert.deepEqual(
      after.filter((outcome) => !outcome.ok),
      [],
      'every request sent once the primary knew is answered',
    );
    assert.ok(
      outcomes.filter((outcome) => !outcome.ok).length <= 1,
      `at most the one request the dead worker held fails: ${JSON.stringify(outcomes.filter((outcome) => !outcome.ok))}`,
    );
    // The new worker serves too (its access lines may wait up to 100 ms in its log buffer).
    await gateway.waitForRecord((record) => record.route === '/v1/echo' && record.pid === replaced.pid, 5000, replacedAt);
  } finally {
    stop = true;
    await traffic;
    await gateway.stop();
    await upstream.close();
  }
});

test('SIGTERM drains every worker: a slow request in flight on each is answered, then the gateway exits 0', async () => {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let arrivals = 0;
  const upstream = await startRecordingUpstream({
    '/v1/hold': (_req, res) => {
      arrivals += 1;
      void held.then(() => res.end('{"late":true}'));
    },
  });
  const gateway = await startGatewayProcess({ AUTH: 'off', RATE_LIMITS: 'off', UPSTREAM_URL: upstream.url, OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS) });
  try {
    // Two connections in a row: the round robin gives one to each worker.
    const inFlight = [requestOnFreshConnection(`${gateway.url}/v1/hold`), requestOnFreshConnection(`${gateway.url}/v1/hold`)];
    while (arrivals < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    const exitCode = gateway.stop('SIGTERM');
    for (const pid of gateway.workerPids) await gateway.waitForRecord((record) => record.msg === 'worker draining' && record.pid === pid);
    release();
    const answers = await Promise.all(inFlight);
    assert.deepEqual(
      answers.map((answer) => [answer.status, answer.body]),
      [
        [200, '{"late":true}'],
        [200, '{"late":true}'],
      ],
    );
    assert.equal(await exitCode, 0, gateway.output());
    const served = gateway.records().filter((record) => record.route === '/v1/hold');
    assert.deepEqual(new Set(served.map((record) => record.pid)), new Set(gateway.workerPids), 'one on each worker');
    assert.match(gateway.output(), /"msg":"gateway stopped"/);
    assert.deepEqual(gateway.workerPids.filter(processRuns), []);
  } finally {
    release();
    await upstream.close();
  }
});

test('SIGTERM with requests that never end: cut at SHUTDOWN_TIMEOUT_MS, and the gateway still exits 0', async () => {
  let arrivals = 0;
  const upstream = await startRecordingUpstream({ '/v1/hold': () => void (arrivals += 1) });
  const gateway = await startGatewayProcess({
    AUTH: 'off',
    RATE_LIMITS: 'off',
    UPSTREAM_URL: upstream.url,
    OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
    SHUTDOWN_TIMEOUT_MS: '500',
  });
  try {
    const inFlight = [
      requestOnFreshConnection(`${gateway.url}/v1/hold`, { timeoutMs: 30_000 }),
      requestOnFreshConnection(`${gateway.url}/v1/hold`, { timeoutMs: 30_000 }),
    ];
    const settled = Promise.allSettled(inFlight);
    while (arrivals < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(await gateway.stop('SIGTERM'), 0, gateway.output());
    const outcomes = await settled;
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['rejected', 'rejected'],
      'cut',
    );
  } finally {
    await upstream.close();
  }
});

test('a crash loop (more than 5 deaths within a minute) stops the gateway with exit 1 and says why', async () => {
  const gateway = await startGatewayProcess({ AUTH: 'off', WORKERS: '1', OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS) });
  try {
    let pid = gateway.workerPids[0] as number;
    for (let death = 1; death <= 6; death++) {
      const from = gateway.records().length;
      process.kill(pid, 'SIGKILL');
      if (death === 6) break;
      pid = (await gateway.waitForRecord((record) => record.msg === 'worker replaced', 30_000, from)).pid as number;
    }
    const fatal = await gateway.waitForRecord((record) => record.level === 60, 30_000);
    assert.match(String(fatal.msg), /^gateway stopping: 6 workers died within 60 s, a crash loop/);
    assert.equal(await gateway.stop(), 1, 'exit 1');
  } finally {
    await gateway.stop('SIGKILL');
  }
});
