import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason, startRedis, type RedisServer, waitForReady } from '@animal-store/testkit';
import {
  capturedLog,
  createTestKeyring,
  PROXY_TEST_PATHS,
  rawExchange,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  writeDocument,
} from './support/index.js';

// Issue 19, what the operator sees: a normal start says nothing alarming, and the answers Node's
// parser makes (400, 408, 431) have an access-log line and a metric like every other answer.

interface Line {
  readonly level: number;
  readonly msg?: string;
  readonly [field: string]: unknown;
}

describe('what the operator sees', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  let upstream: RecordingUpstream;
  let keyring: Awaited<ReturnType<typeof createTestKeyring>>;
  let gateway: RunningGateway;
  const log = capturedLog();
  const lines = () =>
    log
      .text()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Line);

  before(async () => {
    redis = await startRedis();
    upstream = await startRecordingUpstream();
    keyring = await createTestKeyring();
    gateway = await startGateway(
      {
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
        JWKS_FILE: keyring.files.jwks,
        REDIS_URL: redis.url,
        RATE_LIMITS: 'on',
        METRICS_PORT: '0',
        MAX_HEADER_SIZE: '2048',
      },
      undefined,
      undefined,
      { logger: log.logger },
    );
    await waitForReady(gateway.url);
  });
  after(async () => {
    await gateway?.close();
    await upstream?.close();
    await redis?.close();
  });

  test('a start with a healthy Redis logs no warning (no "Redis does not answer", no "answers again")', async () => {
    const { token } = await keyring.issue({ plan: 'pro', sub: 'quiet-start' });
    const res = await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    assert.equal(res.status, 200);
    const loud = lines().filter((line) => line.level >= 40 || /Redis (does not answer|answers again)/.test(line.msg ?? ''));
    assert.deepEqual(
      loud.map((line) => line.msg),
      [],
    );
  });

  const accessLine = async (status: number) => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const found = lines().find((line) => line.status === status);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`no access line with status ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  test("the parser's 400 and 431 have an access-log line (query values redacted) and a metric", async () => {
    const bad = await rawExchange(gateway.port, 'GET /v1/echo?api_key=secret HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    assert.match(bad, /^HTTP\/1\.1 400 /);
    const big = await rawExchange(gateway.port, `GET /v1/echo?api_key=secret HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(4096)}\r\n\r\n`);
    assert.match(big, /^HTTP\/1\.1 431 /);

    const badLine = await accessLine(400);
    assert.equal(badLine.outcome, 'bad_request');
    assert.equal(badLine.route, 'unmatched');
    assert.equal(typeof badLine.requestId, 'string');
    const bigLine = await accessLine(431);
    assert.equal(bigLine.outcome, 'headers_too_large');
    assert.equal(bigLine.method, 'GET');
    assert.equal(bigLine.url, '/v1/echo?api_key=REDACTED');
    assert.equal(bigLine.plan, 'anonymous', 'a 431 is charged to its address');
    assert.equal(bigLine.decision, 'allowed');
    assert.equal(log.text().includes('secret'), false);

    const metrics = await (await fetch(gateway.metricsUrl as string)).text();
    assert.match(metrics, /http_server_request_duration_seconds_count\{[^}]*http_response_status_code="400",outcome="bad_request"\} 1\b/);
    assert.match(
      metrics,
      // Issue 29, point 19: a 431 on an operation's path is labelled with its route (was `unmatched`).
      /http_server_request_duration_seconds_count\{http_request_method="GET",http_route="\/v1\/echo",http_response_status_code="431",outcome="headers_too_large"\} 1\b/,
    );
    assert.match(metrics, /http_server_active_requests\{http_request_method="GET"\} 0\b/);
  });
});

/** A gateway with limits on a Redis nobody listens on, and its captured log; `close` stops both. */
async function withUnreachableRedis(env: Record<string, string> = {}) {
  const { freePort } = await import('@animal-store/testkit');
  const upstream = await startRecordingUpstream();
  const log = capturedLog();
  const gateway = await startGateway(
    {
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      AUTH: 'off',
      RATE_LIMITS: 'on',
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      ...env,
    },
    undefined,
    undefined,
    { logger: log.logger, waitForRedis: false },
  );
  return {
    gateway,
    log,
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}

test('a Redis that is really unreachable is still reported, once the start grace is over', { skip: redisSkipReason() }, async () => {
  const { gateway, log, close } = await withUnreachableRedis();
  try {
    await new Promise((resolve) => setTimeout(resolve, 2100)); // past the start grace
    const res = await fetch(`${gateway.url}/v1/echo`);
    await res.arrayBuffer();
    assert.equal(res.status, 200, 'the local policy answers');
    assert.match(log.text(), /"level":40[^\n]*Redis does not answer: the failure policies apply/);
  } finally {
    await close();
  }
});

test('requests answered without Redis are logged as degraded, one line a second, naming the policy', { skip: redisSkipReason() }, async () => {
  const { gateway, log, close } = await withUnreachableRedis({ RATE_LIMIT_ON_REDIS_FAILURE: 'open' });
  try {
    for (let i = 0; i < 3; i += 1) {
      const res = await fetch(`${gateway.url}/v1/echo`);
      await res.arrayBuffer();
      assert.equal(res.status, 200, 'the open policy admits');
    }
    const degraded = log
      .text()
      .split('\n')
      .filter((line) => line.includes('rate limits degraded'))
      .map((line) => JSON.parse(line) as Line);
    assert.equal(degraded.length, 1, 'three requests within a second make one line');
    assert.equal(degraded[0]?.level, 40);
    assert.equal(degraded[0]?.policy, 'open');
  } finally {
    await close();
  }
});
