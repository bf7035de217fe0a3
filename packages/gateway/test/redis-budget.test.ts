import assert from 'node:assert/strict';
import { connectedRedisClient, createTestKeyring, type RunningGateway, startGateway, startLimitedStack } from './support/index.js';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { burst, redisSkipReason, startRedis, type RedisServer, waitForReady } from '@animal-store/testkit';
import type { RedisClient } from '../src/redis/index.js';

/** Keeps this process's event loop busy for `ms`, as a burst of requests to parse would. */
function blockLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

// Issue "hold the guarantees under bursts": the command budget is Redis's, not the event loop's.
describe('the Redis command budget counts Redis not answering, not the gateway being busy', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  let admin: Redis;
  let client: RedisClient;

  before(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
    client = await connectedRedisClient(redis.url, 50);
  });
  after(async () => {
    await client?.close();
    admin?.disconnect();
    await redis?.close();
  });

  test('a reply that came in time but is read after a 200 ms busy loop is used, not a timeout', async () => {
    for (let i = 0; i < 5; i++) {
      const reply = client.sIsMember('budget-set', 'member');
      blockLoop(200);
      assert.equal(await reply, false);
    }
  });

  test('Redis really not answering still fails within the budget', async () => {
    await admin.call('CLIENT', 'PAUSE', '400', 'ALL');
    const started = performance.now();
    await assert.rejects(client.sIsMember('budget-set', 'member'), { name: 'RedisTimeoutError' });
    const waited = performance.now() - started;
    assert.ok(waited >= 45 && waited < 300, `failed after ${waited} ms with a 50 ms budget`);
    await new Promise((resolve) => setTimeout(resolve, 400));
  });
});

/** A gateway with limits in a private Redis and the closed failure policy, in front of a recording upstream. */
async function startClosedPolicyGateway() {
  const stack = await startLimitedStack();
  const gateway = await startGateway({ ...stack.env, RATE_LIMIT_ON_REDIS_FAILURE: 'closed' });
  await waitForReady(gateway.url);
  return {
    redis: stack.redis as RedisServer,
    gateway,
    keyring: stack.keyring,
    async close() {
      await gateway.close();
      await stack.close();
    },
  };
}

describe('a busy gateway is not a failing Redis: with the closed policy, no 503 while the loop is blocked', { skip: redisSkipReason() }, () => {
  let stack: Awaited<ReturnType<typeof startClosedPolicyGateway>>;
  let gateway: RunningGateway;
  let keyring: Awaited<ReturnType<typeof createTestKeyring>>;

  before(async () => {
    stack = await startClosedPolicyGateway();
    ({ gateway, keyring } = stack);
  });
  after(async () => {
    await stack?.close();
  });

  test('80 requests on a free key, every turn of the loop 80 ms long: 60 admitted, 20 refused, no 503', async () => {
    const { token } = await keyring.issue({ plan: 'free', sub: 'busy-loop' });
    // The gateway runs in this process: these stalls are its own event loop's. Each turn ends
    // with 80 ms of work, so a reply to a command written in one turn is read in the next, after
    // more than the 50 ms budget.
    let stalling = true;
    const stall = () => {
      if (!stalling) return;
      blockLoop(80);
      setImmediate(stall);
    };
    setImmediate(stall);
    try {
      const counts = await burst([gateway.url], 80, token);
      assert.deepEqual(counts, { 200: 60, 429: 20 });
    } finally {
      stalling = false;
    }
  });
});

describe('a rate-limit call that Redis runs after its budget charges nothing', { skip: redisSkipReason() }, () => {
  let stack: Awaited<ReturnType<typeof startClosedPolicyGateway>>;
  let admin: Redis;
  let gateway: RunningGateway;
  let keyring: Awaited<ReturnType<typeof createTestKeyring>>;

  before(async () => {
    stack = await startClosedPolicyGateway();
    ({ gateway, keyring } = stack);
    admin = new Redis(stack.redis.url);
  });
  after(async () => {
    admin?.disconnect();
    await stack?.close();
  });

  test('20 requests refused with 503 during a CLIENT PAUSE are not charged when Redis runs their call afterwards', async () => {
    const { token } = await keyring.issue({ plan: 'free', sub: 'paused-account' });
    const call = () => fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } });
    // One answer first: the limiter learns Redis's clock from it.
    assert.equal((await call()).headers.get('x-ratelimit-remaining'), '59');
    // Long beside the command budget, so that on a loaded host the 20 requests still all reach the
    // gateway while Redis holds its calls (with 600 ms, some came after the pause and were admitted).
    const pauseMs = 3_000;
    const pausedAt = performance.now();
    await admin.call('CLIENT', 'PAUSE', String(pauseMs), 'WRITE');
    const statuses = await Promise.all(Array.from({ length: 20 }, () => call().then(async (res) => (await res.arrayBuffer(), res.status))));
    assert.ok(performance.now() - pausedAt < pauseMs, 'every request was answered while Redis was paused');
    assert.deepEqual(new Set(statuses), new Set([503]));
    // The pause is over, and Redis ran what it held.
    await new Promise((resolve) => setTimeout(resolve, pauseMs + 300 - (performance.now() - pausedAt)));
    const after = await call();
    assert.equal(after.status, 200);
    assert.equal(after.headers.get('x-ratelimit-remaining'), '58', 'only the two answered requests were charged');
  });
});
