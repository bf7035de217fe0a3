import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason } from '@animal-store/testkit';
import { runLoad, type LoadResult } from '../../../../bench/lib/load.js';
import { startStack, type Stack } from './stack.js';

// Hostile suite: a Redis stall under load. Redis stops answering for 3 s (CLIENT PAUSE) while
// clients keep a gateway process busy; with RATE_LIMIT_ON_REDIS_FAILURE=local the gateway must
// keep answering from its local limiter without any request waiting out the stall, stop asking
// Redis (the circuit breaker), and go back to Redis afterwards. The throughput during the stall
// against before it is printed (the goal is 80% or more), not asserted: the machine is shared.

const PAUSE_MS = 3000;
const CONNECTIONS = 32;
const SETTINGS = { connections: CONNECTIONS, pipelining: 1, durationSeconds: PAUSE_MS / 1000, warmupSeconds: 0 };

describe('hostile stall: Redis paused under load, RATE_LIMIT_ON_REDIS_FAILURE=local', { skip: redisSkipReason() }, () => {
  let stack: Stack;
  let admin: Redis;
  let token: string;

  before(async () => {
    stack = await startStack({ gateways: 1, env: { RATE_LIMIT_ON_REDIS_FAILURE: 'local' } });
    admin = new Redis(stack.redis.url);
    token = await stack.unlimitedKey('hostile-stall');
  });
  after(async () => {
    admin?.disconnect();
    await stack?.close();
  });

  const load = () =>
    runLoad({
      url: `${(stack.gateways[0] as Stack['gateways'][number]).url}/v1/pets?limit=1`,
      headers: { authorization: `Bearer ${token}` },
      settings: SETTINGS,
    });
  // The limiter's calls: FCALL (Redis Functions), EVALSHA where Redis has none.
  const scriptCalls = async () =>
    [...(await admin.info('commandstats')).matchAll(/^cmdstat_(?:evalsha|fcall):calls=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  const limitHeader = async () => {
    const res = await fetch(`${(stack.gateways[0] as Stack['gateways'][number]).url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    return res.headers.get('x-ratelimit-limit');
  };
  const describeLoad = (result: LoadResult) =>
    `${result.requests} requests, ${Math.round(result.rps)} req/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, statuses ${JSON.stringify(result.statuses)}, errors ${result.errors}`;

  test(`a ${PAUSE_MS / 1000} s CLIENT PAUSE under ${CONNECTIONS} connections: every request answered 200 from the local limiter, none waiting out the stall, Redis left alone, then back`, async () => {
    await load(); // warm-up: JIT, connections, the verified-key cache
    const normal = await load();
    assert.equal(await limitHeader(), '1000000000', 'Redis decides before the stall');

    const callsBefore = await scriptCalls();
    await admin.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'WRITE');
    const stalled = await load();
    // Redis runs the calls it held once the pause ends; wait for it, then count them.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const callsDuring = (await scriptCalls()) - callsBefore;

    console.log(`# normal:  ${describeLoad(normal)}`);
    console.log(`# stalled: ${describeLoad(stalled)}`);
    console.log(
      `# throughput during the stall: ${((100 * stalled.rps) / normal.rps).toFixed(0)}% of normal (goal: 80% or more); Redis was asked ${callsDuring} times for ${stalled.requests} requests`,
    );

    assert.deepEqual(Object.keys(stalled.statuses), ['200'], `every answer during the stall is a 200: ${JSON.stringify(stalled.statuses)}`);
    assert.equal(stalled.errors, 0);
    assert.equal(stalled.timeouts, 0);
    // The circuit breaker: after the first failures, requests go straight to the local limiter.
    assert.ok(callsDuring < stalled.requests / 20, `Redis was asked ${callsDuring} times for ${stalled.requests} requests`);
    // Nobody waited for Redis: the slowest answer is far from the pause's length.
    const max = (stalled.raw as { latency: { max: number } }).latency.max;
    assert.ok(max < PAUSE_MS / 2, `a request waited ${max} ms during a ${PAUSE_MS} ms pause`);
    // Recovery by itself: Redis decides again (the local limiter says half the plan).
    const deadline = Date.now() + 5000;
    while ((await limitHeader()) !== '1000000000') {
      assert.ok(Date.now() < deadline, 'Redis never decided again after the pause');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
