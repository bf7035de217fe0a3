import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Agent, request } from 'node:http';
import {
  processRuns,
  PROXY_TEST_PATHS,
  requestOnFreshConnection,
  startGatewayProcess,
  startLimitedStack,
  startRecordingUpstream,
  writeDocument,
} from './support/index.js';

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
    // No shorter than SHUTDOWN_TIMEOUT_MS, or the gateway does not start.
    KEEP_ALIVE_TIMEOUT_MS: '500',
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

// Issue 39, 2.1: limits kept by the primary (no Redis, two workers) and a primary that stops
// answering (SIGSTOP): a worker's check has a deadline, and the failure policy answers past it.
for (const policy of ['local', 'closed'] as const) {
  test(`a stopped primary freezes no request: each is answered within RATE_LIMIT_PRIMARY_TIMEOUT_MS, by RATE_LIMIT_ON_PRIMARY_FAILURE=${policy}`, async () => {
    const stack = await startLimitedStack({ redis: false });
    const gateway = await startGatewayProcess({ ...stack.env, RATE_LIMIT_ON_PRIMARY_FAILURE: policy, RATE_LIMIT_PRIMARY_TIMEOUT_MS: '500' });
    const { token } = await stack.keyring.issue({ plan: 'business', sub: `stopped-primary-${policy}` });
    // Open keep-alive connections, as a client's pool keeps them: the primary is not asked to hand any over.
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    const ask = () =>
      new Promise<{ status: number; ms: number }>((resolve, reject) => {
        const started = performance.now();
        const req = request(`${gateway.url}/v1/echo`, { agent, headers: { authorization: `Bearer ${token}` }, timeout: 10_000 }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
        });
        req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
        req.on('error', reject);
        req.end();
      });
    let stopped = false;
    try {
      for (let i = 0; i < 4; i++) assert.equal((await ask()).status, 200, 'the primary decides while it runs');
      process.kill(gateway.pid, 'SIGSTOP');
      stopped = true;
      const during: { status: number; ms: number }[] = [];
      const until = performance.now() + 6_000;
      while (performance.now() < until) during.push(await ask());
      process.kill(gateway.pid, 'SIGCONT');
      stopped = false;
      const byStatus: Record<number, number> = {};
      for (const answer of during) byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
      const slowest = Math.round(Math.max(...during.map((answer) => answer.ms)));
      console.log(`# while stopped: ${during.length} requests, ${JSON.stringify(byStatus)}, the slowest ${slowest} ms`);
      assert.ok(during.length >= 4, `requests went on while the primary was stopped: ${during.length} in 6 s`);
      // The deadline, and a margin for a busy machine: never the 6 s the primary is away.
      assert.ok(
        during.every((answer) => answer.ms < 3_000),
        `the slowest waited ${Math.round(Math.max(...during.map((answer) => answer.ms)))} ms`,
      );
      const statuses = during.map((answer) => answer.status);
      if (policy === 'local') {
        // The worker limits by itself at its part of the plan: business's 1,000 a minute, times
        // RATE_LIMIT_LOCAL_SHARE (0.5), over two workers. A fast machine uses it up within the 6 s.
        assert.equal(statuses[0], 200, 'the local limit admits');
        assert.deepEqual(
          [...new Set(statuses)].filter((status) => status !== 200 && status !== 429),
          [],
          'only the local limit answers',
        );
        const admitted = statuses.filter((status) => status === 200).length;
        assert.ok(admitted <= (1_000 * 0.5) / 2, `${admitted} admitted, over the worker's part of 250`);
        if (statuses.includes(429)) assert.ok(admitted >= (1_000 * 0.5) / 2 - 4, `refused after only ${admitted}`);
      } else {
        assert.deepEqual([...new Set(statuses)], [503]);
      }
      // Once it runs again, it decides again.
      const deadline = Date.now() + 10_000;
      let back = await ask();
      while (back.status !== 200 && Date.now() < deadline) back = await ask();
      assert.equal(back.status, 200);
    } finally {
      if (stopped) process.kill(gateway.pid, 'SIGCONT');
      agent.destroy();
      await gateway.stop();
      await stack.close();
    }
  });
}
