import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { burst, redisSkipReason, waitForReady } from '@animal-store/testkit';
import { Agent, request } from 'undici';
import { startStack, type Stack } from './hostile/stack.js';
import { startGateway, startLimitedStack, type LimitedStack, type RunningGateway } from './support/index.js';

// Issue 19, the `local` policy in a real outage (docs/limits.md, "The bound in an outage"): two
// gateway processes with the default share (0.5) on one Redis, a business key (1,000 a minute).
// Redis admits U = 200, then dies: the instances together admit exactly what Redis had left
// (L − U = 800), each its share of it, and not a request more. Redis then comes back empty (it
// keeps nothing on disk) and decides again from zero: the window that spans the outage admits
// U + (L − U) + L = 2,000, the bound the docs give for N × s = 1 and a Redis that lost its counts.
describe('the local policy in a Redis outage: the bound, measured', { skip: redisSkipReason() }, () => {
  const L = 1000;
  const U = 200;
  let stack: Stack;
  let dispatcher: Agent;

  before(async () => {
    // Two workers each, as on a 2-core host by default: the bound is per gateway, whatever its workers.
    stack = await startStack({ gateways: 2, env: { WORKERS: '2' } });
    dispatcher = new Agent({ keepAliveTimeout: 1000 });
  });
  after(async () => {
    await dispatcher?.close();
    await stack?.close();
  });

  const send = (i: number, token: string) =>
    request(`${(stack.gateways[i % 2] as Stack['gateways'][number]).url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${token}` }, dispatcher }).then(
      async (res) => (await res.body.arrayBuffer(), res.statusCode),
    );
  // Both instances in turn, each request on a connection of its own (the testkit's burst).
  const burstOnBoth = (count: number, token: string) =>
    burst(
      stack.gateways.map((gateway) => gateway.url),
      count,
      token,
      { path: '/v1/pets?limit=1' },
    );

  test(`U = ${U} admitted by Redis, Redis killed: ${L - U} more at most, then ${L} once it is back empty`, { timeout: 50_000 }, async () => {
    const { token } = await stack.keyring.issue({ plan: 'business', sub: 'outage-bound' });
    // One at a time, alternating: each instance's last answer from Redis says 199 and 200.
    for (let i = 0; i < U; i++) assert.equal(await send(i, token), 200);

    await stack.redis.stop('SIGKILL');
    let during: Record<number, number>;
    try {
      during = await burstOnBoth(3000, token);
    } finally {
      await stack.redis.restart();
    }
    console.log(`# Redis down: ${JSON.stringify(during)}`);
    // Each instance: floor(0.5 × 1000) − ceil(0.5 × its last count) = 500 − 100.
    assert.deepEqual(during, { 200: L - U, 429: 3000 - (L - U) });

    for (const gateway of stack.gateways) await waitForReady(gateway.url, 15_000);
    // Each worker's breaker may still hold a probe back for half a second: wait until Redis decides
    // again in every worker (each probe on a connection of its own: the workers take turns).
    const deadline = Date.now() + 10_000;
    const probe = async (url: string) => {
      const sub = `outage-probe-${Date.now()}-${Math.random()}`;
      const answer = await request(`${url}/v1/pets?limit=1`, {
        headers: { authorization: `Bearer ${(await stack.keyring.issue({ plan: 'business', sub })).token}`, connection: 'close' },
        dispatcher,
      });
      await answer.body.arrayBuffer();
      return answer.headers['x-ratelimit-limit'] === String(L);
    };
    for (let decided = 0; decided < 8;) {
      assert.ok(Date.now() < deadline, 'Redis never decided again in every worker');
      if (await probe((stack.gateways[decided % 2] as Stack['gateways'][number]).url)) decided += 1;
      else {
        decided = 0;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const after = await burstOnBoth(3000, token);
    console.log(`# Redis back, empty: ${JSON.stringify(after)}`);
    assert.deepEqual(after, { 200: L, 429: 3000 - L });
  });
});

// Issue 39, 2.8: with several workers, a gateway's `local` share is one (kept by its primary), and
// it must start from what Redis had admitted as every worker saw it, not as the worker that
// happens to fall back first saw it. Here, in one process, a gateway of two worker halves, each on
// its own port: only the second has seen Redis decide for the account (600 of 1,000), then Redis
// dies. The first falls back first, with no view of its own.
describe('the local policy in a Redis outage, two workers: the share starts from what either worker saw', { skip: redisSkipReason() }, () => {
  const L = 1000;
  const U = 600;
  let stack: LimitedStack;
  let gateway: RunningGateway;
  let dispatcher: Agent;

  before(async () => {
    stack = await startLimitedStack();
    gateway = await startGateway(
      // No leases: every admission before the outage is Redis's own answer.
      { ...stack.env, WORKERS: '2', RATE_LIMIT_ON_REDIS_FAILURE: 'local', RATE_LIMIT_LOCAL_SHARE: '0.5', RATE_LIMIT_LEASE_UNITS: '0' },
      undefined,
      undefined,
      { workerHalves: 2 },
    );
    dispatcher = new Agent({ keepAliveTimeout: 1000 });
  });
  after(async () => {
    await dispatcher?.close();
    await gateway?.close();
    await stack?.close();
  });

  const burstOn = (url: string, count: number, token: string) => burst([url], count, token);

  test(
    `U = ${U} seen by the second worker alone, Redis killed: the gateway admits floor(0.5 × ${L}) − ceil(0.5 × ${U}) more, whichever worker asks`,
    { timeout: 50_000 },
    async () => {
      const [first, second] = gateway.workerUrls as [string, string];
      const { token } = await stack.keyring.issue({ plan: 'business', sub: 'outage-workers' });
      assert.deepEqual(await burstOn(second, U, token), { 200: U });
      const redis = stack.redis as NonNullable<LimitedStack['redis']>;
      await redis.stop('SIGKILL');
      let fromFirst: Record<number, number>;
      let fromSecond: Record<number, number>;
      try {
        fromFirst = await burstOn(first, 300, token);
        fromSecond = await burstOn(second, 300, token);
      } finally {
        await redis.restart();
      }
      console.log(`# Redis down: first worker ${JSON.stringify(fromFirst)}, second ${JSON.stringify(fromSecond)}`);
      assert.equal((fromFirst[200] ?? 0) + (fromSecond[200] ?? 0), 500 - 300, 'the bound of the gateway, its workers together');
    },
  );
});
