import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason } from '@animal-store/testkit';
import { isDeepStrictEqual } from 'node:util';
import { burstsOnFreshGateways } from './burst-exactness.js';
import { REPETITIONS } from './repetitions.js';
import { burstOnStack, startStack, type Stack } from './stack.js';

// Hostile suite: the product's central promise under the attack run's burst. Two gateway
// processes with default settings on one Redis, 3,000 requests at once, half to each: exactly the
// plan's limit is admitted, whatever the arrival pattern does to the gateways' event loops.
// (packages/gateway/test/ratelimit-burst.test.ts holds the same with in-process gateways.)
describe('hostile burst: 3,000 parallel requests over two gateway processes on one Redis', { skip: redisSkipReason() }, () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack({ gateways: 2 });
  });
  after(async () => {
    await stack?.close();
  });

  async function burst(count: number, token: string): Promise<Record<number, number>> {
    const started = performance.now();
    const counts = await burstOnStack(stack, count, token);
    console.log(`# ${count} requests in ${((performance.now() - started) / 1000).toFixed(1)} s: ${JSON.stringify(counts)}`);
    return counts;
  }

  test('a free key (60 a minute): exactly 60 admitted, every other request a 429', async () => {
    const { token } = await stack.keyring.issue({ plan: 'free', sub: 'hostile-burst-free' });
    assert.deepEqual(await burst(3000, token), { 200: 60, 429: 2940 });
  });

  test('a business key (1,000 a minute): exactly 1,000 admitted, every other request a 429', async () => {
    const { token } = await stack.keyring.issue({ plan: 'business', sub: 'hostile-burst-business' });
    assert.deepEqual(await burst(3000, token), { 200: 1000, 429: 2000 });
  });

  test('both again at once, on fresh accounts: exactly 60 and exactly 1,000', async () => {
    const free = (await stack.keyring.issue({ plan: 'free', sub: 'hostile-burst-free-2' })).token;
    const business = (await stack.keyring.issue({ plan: 'business', sub: 'hostile-burst-business-2' })).token;
    const [a, b] = await Promise.all([burst(1500, free), burst(3000, business)]);
    assert.deepEqual(a, { 200: 60, 429: 1440 });
    assert.deepEqual(b, { 200: 1000, 429: 2000 });
  });
});

// Issue 19: exact from the first request. Fresh gateway processes, under each failure policy, on a
// quiet host: the first burst after start and REPETITIONS more (repetitions.ts), each exactly the
// limit, and no 503 under `closed` (Redis is healthy throughout). The same with every core kept
// busy by a CPU hog, where a late reply from a healthy Redis must never count as an outage, is
// npm test's (packages/gateway/test/ratelimit-burst.test.ts, the first burst and 4 more): CI runs
// both suites, and each run under the hog costs a minute or more of CI's 30 on two cores.
// EXACTNESS_ENV (JSON) adds settings to the gateways, e.g. '{"REDIS_COMMAND_TIMEOUT_MS":"100"}' to
// see how the floor of the budget fares (the old 50 ms budget, below the floor, no longer starts).
const extraEnv = JSON.parse(process.env.EXACTNESS_ENV ?? '{}') as Record<string, string>;
for (const policy of ['local', 'closed'] as const) {
  describe(`hostile exactness: fresh gateways, RATE_LIMIT_ON_REDIS_FAILURE=${policy}, quiet host`, { skip: redisSkipReason() }, () => {
    test(
      `the first burst and ${REPETITIONS} repetitions of 3,000 parallel requests: exactly the limit each time, every other answer a 429`,
      { timeout: 600_000 },
      async () => {
        const outcomes = await burstsOnFreshGateways({
          policy,
          hog: false,
          repetitions: REPETITIONS,
          requests: 3000,
          env: extraEnv,
          report: (line) => console.log(`# ${line}`),
        });
        const wrong = outcomes.filter((outcome) => !isDeepStrictEqual(outcome.counts, outcome.expected));
        assert.deepEqual(
          wrong.map((outcome) => `${outcome.plan}: ${JSON.stringify(outcome.counts)}`),
          [],
          `${wrong.length} of ${outcomes.length} bursts were not exact`,
        );
      },
    );
  });
}
