import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, type RedisServer, waitForReady } from '@animal-store/testkit';
import {
  type LimitedStack,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startLimitedStack,
  type TestKeyring,
  writePlansFile,
} from './support/index.js';

const PLANS = writePlansFile();

describe('rate limits when Redis fails', { skip: redisSkipReason() }, () => {
  let stack: LimitedStack;
  let redis: RedisServer;
  let admin: Redis;
  let keyring: TestKeyring;
  let upstream: RecordingUpstream;
  const open: RunningGateway[] = [];

  before(async () => {
    stack = await startLimitedStack();
    ({ upstream, keyring } = stack);
    redis = stack.redis as RedisServer;
    admin = new Redis(redis.url, { lazyConnect: false });
  });
  after(async () => {
    for (const gateway of open) await gateway.close();
    admin?.disconnect();
    await stack?.close();
  });

  /** A gateway on this Redis; `budgetMs` is the command deadline (`default`: the setting left unset; 100, its floor, by default here). */
  async function gatewayWith(policy: string, budgetMs: string | 'default' = '100'): Promise<RunningGateway> {
    const gateway = await startGateway({
      ...stack.env,
      PLANS_FILE: PLANS,
      ...(budgetMs === 'default' ? {} : { REDIS_COMMAND_TIMEOUT_MS: budgetMs }),
      RATE_LIMIT_ON_REDIS_FAILURE: policy,
      RATE_LIMIT_LOCAL_SHARE: '0.5',
    });
    open.push(gateway);
    await waitForReady(gateway.url);
    return gateway;
  }

  const timed = async (url: string, token: string) => {
    const started = performance.now();
    const res = await fetch(`${url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    return { res, ms: performance.now() - started };
  };

  async function untilLimitIs(url: string, token: string, limit: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while ((await timed(url, token)).res.headers.get('x-ratelimit-limit') !== limit) {
      assert.ok(Date.now() < deadline, `limit never returned to ${limit}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const EXPECTED = {
    open: { status: 200, limit: '60' },
    closed: { status: 503, limit: null },
    local: { status: 200, limit: '30' },
  } as const;

  for (const policy of ['open', 'closed', 'local'] as const) {
    test(`Redis killed and restarted, policy ${policy}: the documented answer, within the budget, then back to normal`, async () => {
      const gateway = await gatewayWith(policy);
      const { token } = await keyring.issue({ plan: 'free', sub: `fault-${policy}` });
      assert.equal((await timed(gateway.url, token)).res.headers.get('x-ratelimit-limit'), '60');
      await redis.stop('SIGKILL');
      try {
        for (let i = 0; i < 5; i++) {
          const { res, ms } = await timed(gateway.url, token);
          assert.equal(res.status, EXPECTED[policy].status);
          assert.equal(res.headers.get('x-ratelimit-limit'), EXPECTED[policy].limit);
          if (policy === 'closed') assert.equal(res.headers.get('retry-after'), '1');
          assert.ok(ms < 1000, `waited ${ms} ms with Redis down`);
        }
      } finally {
        await redis.restart();
      }
      await untilLimitIs(gateway.url, token, '60');
    });
  }

  test('Redis paused longer than the budget: no request waits past it, and none is lost', async () => {
    const gateway = await gatewayWith('local');
    const { token } = await keyring.issue({ plan: 'pro', sub: 'paused' });
    await untilLimitIs(gateway.url, token, '300');
    await admin.call('CLIENT', 'PAUSE', '2000', 'ALL');
    const answers = await Promise.all(Array.from({ length: 10 }, () => timed(gateway.url, token)));
    for (const { res, ms } of answers) {
      assert.equal(res.status, 200);
      assert.ok(ms < 1000, `a request waited ${ms} ms while Redis was paused for 2000`);
    }
    await untilLimitIs(gateway.url, token, '300');
  });

  test('during a Redis stall, only the first requests and one probe at a time wait for Redis: the rest go straight to the policy', async () => {
    const gateway = await gatewayWith('local');
    const { token } = await keyring.issue({ plan: 'pro', sub: 'stalled' });
    await untilLimitIs(gateway.url, token, '300');
    // The limiter's calls: FCALL (Redis Functions), EVALSHA where Redis has none.
    const scriptCalls = async () =>
      [...(await admin.info('commandstats')).matchAll(/^cmdstat_(?:evalsha|fcall):calls=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    const before = await scriptCalls();
    await admin.call('CLIENT', 'PAUSE', '3000', 'WRITE');
    // 60 requests one after another within the stall, each answered by the local policy.
    for (let i = 0; i < 60; i++) {
      const { res } = await timed(gateway.url, token);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-ratelimit-limit'), '150', 'the local share of the plan');
    }
    await new Promise((resolve) => setTimeout(resolve, 3100)); // the held calls run once the pause ends
    const asked = (await scriptCalls()) - before;
    assert.ok(asked <= 12, `Redis was asked ${asked} times for 60 requests during the stall`);
    await untilLimitIs(gateway.url, token, '300');
  });

  // Issue 19: a late reply is not an outage; an unreachable Redis is.
  test('closed, default deadline: Redis slow by 300 ms (paused) is waited for, and no request gets a 503', async () => {
    const gateway = await gatewayWith('closed', 'default');
    const { token } = await keyring.issue({ plan: 'pro', sub: 'slow-not-down' });
    await untilLimitIs(gateway.url, token, '300');
    await admin.call('CLIENT', 'PAUSE', '300', 'WRITE');
    const answers = await Promise.all(Array.from({ length: 20 }, () => timed(gateway.url, token)));
    assert.deepEqual(
      answers.map(({ res }) => res.status),
      Array.from({ length: 20 }, () => 200),
    );
    for (const { res } of answers) assert.equal(res.headers.get('x-ratelimit-limit'), '300', "Redis's decision, not a fallback");
  });

  test('Redis unreachable (killed): the policy answers at once, without waiting out the deadline', async () => {
    const gateway = await gatewayWith('closed', '5000');
    const { token } = await keyring.issue({ plan: 'pro', sub: 'unreachable' });
    await untilLimitIs(gateway.url, token, '300');
    await redis.stop('SIGKILL');
    try {
      for (let i = 0; i < 5; i++) {
        const { res, ms } = await timed(gateway.url, token);
        assert.equal(res.status, 503);
        assert.ok(ms < 2500, `waited ${ms} ms for a Redis that is not there (deadline 5000 ms)`);
      }
    } finally {
      await redis.restart();
    }
    await untilLimitIs(gateway.url, token, '300');
  });

  test('a client that leaves while its request waits on Redis sends nothing upstream', async () => {
    const gateway = await gatewayWith('local', '2000');
    const { token } = await keyring.issue({ plan: 'pro', sub: 'impatient' });
    await untilLimitIs(gateway.url, token, '300');
    await admin.call('CLIENT', 'PAUSE', '700', 'WRITE');
    const controller = new AbortController();
    const pending = fetch(`${gateway.url}/v1/echo`, {
      signal: controller.signal,
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'left-early' },
    }).catch(() => 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 150));
    controller.abort();
    assert.equal(await pending, 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 900)); // Redis answers again; the pipeline goes on
    assert.equal((await timed(gateway.url, token)).res.status, 200);
    assert.equal(
      upstream.requests.some((r) => r.headers['x-request-id'] === 'left-early'),
      false,
    );
  });

  test('SCRIPT FLUSH mid-traffic: the script is loaded again and admission stays exact', async () => {
    const gateway = await gatewayWith('closed', '2000');
    const { token } = await keyring.issue({ plan: 'free', sub: 'flushed' });
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await timed(gateway.url, token)).res.status);
    await admin.script('FLUSH');
    for (let i = 0; i < 40; i++) statuses.push((await timed(gateway.url, token)).res.status);
    assert.deepEqual(
      { admitted: statuses.filter((s) => s === 200).length, refused: statuses.filter((s) => s === 429).length },
      { admitted: 60, refused: 10 },
      `statuses in order: ${statuses.join(' ')}`,
    );
  });

  test('a key over its limit is answered from the local cache, without a Redis round trip', async () => {
    const gateway = await gatewayWith('closed', '2000');
    const { token } = await keyring.issue({ plan: 'free', sub: 'hot' });
    for (let i = 0; i < 61; i++) await timed(gateway.url, token);
    const calls = async () => {
      const stats = (await admin.info('commandstats')).split('\n');
      return ['evalsha', 'eval', 'fcall'].reduce(
        (sum, name) => sum + Number(/calls=(\d+)/.exec(stats.find((l) => l.startsWith(`cmdstat_${name}:`)) ?? '')?.[1] ?? 0),
        0,
      );
    };
    const before = await calls();
    for (let i = 0; i < 20; i++) assert.equal((await timed(gateway.url, token)).res.status, 429);
    assert.ok((await calls()) - before <= 1, `${(await calls()) - before} script calls for 20 refusals`);
  });
});
