import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason } from '@animal-store/testkit';
import { Agent, request } from 'undici';
import { startStack, untilReady, type Stack } from './hostile/stack.js';

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
    stack = await startStack({ gateways: 2 });
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
  async function burst(count: number, token: string): Promise<Record<number, number>> {
    const counts: Record<number, number> = {};
    for (const status of await Promise.all(Array.from({ length: count }, (_, i) => send(i, token)))) counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  }

  test(`U = ${U} admitted by Redis, Redis killed: ${L - U} more at most, then ${L} once it is back empty`, { timeout: 50_000 }, async () => {
    const { token } = await stack.keyring.issue({ plan: 'business', sub: 'outage-bound' });
    // One at a time, alternating: each instance's last answer from Redis says 199 and 200.
    for (let i = 0; i < U; i++) assert.equal(await send(i, token), 200);

    await stack.redis.stop('SIGKILL');
    let during: Record<number, number>;
    try {
      during = await burst(3000, token);
    } finally {
      await stack.redis.restart();
    }
    console.log(`# Redis down: ${JSON.stringify(during)}`);
    // Each instance: floor(0.5 × 1000) − ceil(0.5 × its last count) = 500 − 100.
    assert.deepEqual(during, { 200: L - U, 429: 3000 - (L - U) });

    for (const gateway of stack.gateways) await untilReady(gateway.url);
    // The breaker may still hold a probe back for half a second: wait until Redis decides again.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = await request(`${(stack.gateways[0] as Stack['gateways'][number]).url}/v1/pets?limit=1`, {
        headers: { authorization: `Bearer ${(await stack.keyring.issue({ plan: 'business', sub: `outage-probe-${Date.now()}` })).token}` },
        dispatcher,
      });
      await probe.body.arrayBuffer();
      if (probe.headers['x-ratelimit-limit'] === String(L)) break;
      assert.ok(Date.now() < deadline, 'Redis never decided again');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const after = await burst(3000, token);
    console.log(`# Redis back, empty: ${JSON.stringify(after)}`);
    assert.deepEqual(after, { 200: L, 429: 3000 - L });
  });
});
