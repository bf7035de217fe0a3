// npm test: alone (its exactness bursts run under a CPU hog that keeps every core busy).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { burst, redisSkipReason, waitForReady } from '@animal-store/testkit';
import { burstsOnFreshGateways } from './hostile/burst-exactness.js';
import { type LimitedStack, type RunningGateway, startGateway, startLimitedStack, type TestKeyring, writePlansFile } from './support/index.js';

// Issue "hold the guarantees under bursts": with the default 50 ms command budget, a burst that
// keeps the gateway's event loop busy must not turn healthy Redis replies into timeouts (and so
// into local admissions on top of what Redis admitted).
describe('exact admission under a burst, default settings, two instances on one Redis', { skip: redisSkipReason() }, () => {
  let stack: LimitedStack;
  let keyring: TestKeyring;
  const gateways: RunningGateway[] = [];
  const urls: string[] = [];

  before(async () => {
    stack = await startLimitedStack();
    keyring = stack.keyring;
    gateways.push(await startGateway(stack.env), await startGateway(stack.env));
    for (const gateway of gateways) await waitForReady(gateway.url);
    urls.push(...gateways.map((gateway) => gateway.url));
  });
  after(async () => {
    for (const gateway of gateways) await gateway.close();
    await stack?.close();
  });

  test('3,000 in parallel on a free key (60 a minute): exactly 60 admitted', async () => {
    const { token } = await keyring.issue({ plan: 'free', sub: 'burst-free' });
    assert.deepEqual(await burst(urls, 3000, token), { 200: 60, 429: 2940 });
  });

  test('3,000 in parallel on a business key (1,000 a minute): exactly 1,000 admitted', async () => {
    const { token } = await keyring.issue({ plan: 'business', sub: 'burst-business' });
    assert.deepEqual(await burst(urls, 3000, token), { 200: 1000, 429: 2000 });
  });
});

// Issue 21, cost per operation: units, not requests, are what the two instances share exactly.
describe('exact admission in units: an operation that costs 5, two instances on one Redis', { skip: redisSkipReason() }, () => {
  let stack: LimitedStack;
  const gateways: RunningGateway[] = [];

  before(async () => {
    stack = await startLimitedStack();
    const env = { ...stack.env, PLANS_FILE: writePlansFile({ plans: { free: { minute: 60, day: 1000, cost: { echoGet: 5 } } } }) };
    gateways.push(await startGateway(env), await startGateway(env));
    for (const gateway of gateways) await waitForReady(gateway.url);
  });
  after(async () => {
    for (const gateway of gateways) await gateway.close();
    await stack?.close();
  });

  test('3,000 in parallel on a free key (60 units a minute, 5 a request): exactly 12 admitted, 60 units charged', async () => {
    const { token } = await stack.keyring.issue({ plan: 'free', sub: 'burst-cost' });
    const urls = gateways.map((gateway) => gateway.url);
    assert.deepEqual(await burst(urls, 3000, token), { 200: 12, 429: 2988 });
    const res = await fetch(`${urls[0]}/v1/usage`, { headers: { authorization: `Bearer ${token}` } });
    const usage = (await res.json()) as { windows: Record<string, { remaining: number }> };
    assert.deepEqual([usage.windows.minute?.remaining, usage.windows.day?.remaining], [0, 940], 'units, and no unit charged by a refusal');
  });
});

// Issue 21, operation ceilings: one counter for every caller, decided with each caller's account in
// one atomic step, so instances and accounts together admit exactly the ceiling.
describe('exact admission at an operation ceiling: three accounts over two instances on one Redis', { skip: redisSkipReason() }, () => {
  let stack: LimitedStack;
  const gateways: RunningGateway[] = [];

  before(async () => {
    stack = await startLimitedStack();
    const plans = JSON.parse(readFileSync(writePlansFile(), 'utf8')) as object;
    const file = writePlansFile();
    writeFileSync(file, JSON.stringify({ ...plans, operations: { echoGet: { minute: 250 } } }));
    const env = { ...stack.env, PLANS_FILE: file };
    gateways.push(await startGateway(env), await startGateway(env));
    for (const gateway of gateways) await waitForReady(gateway.url);
  });
  after(async () => {
    for (const gateway of gateways) await gateway.close();
    await stack?.close();
  });

  test('3 × 1,000 in parallel on three business keys (1,000 a minute each), a ceiling of 250: exactly 250 admitted', async () => {
    const urls = gateways.map((gateway) => gateway.url);
    const tokens = await Promise.all([1, 2, 3].map(async (i) => (await stack.keyring.issue({ plan: 'business', sub: `ceiling-${i}` })).token));
    const counts = await Promise.all(tokens.map((token) => burst(urls, 1000, token)));
    const admitted = counts.reduce((sum, each) => sum + (each[200] ?? 0), 0);
    const refused = counts.reduce((sum, each) => sum + (each[429] ?? 0), 0);
    assert.deepEqual({ admitted, refused }, { admitted: 250, refused: 2750 });
  });
});

// Issue 19 on a busy host (the hostile suite's burst.hostile.ts holds the same on a quiet host):
// fresh gateway processes, every core kept busy by other processes from before they start, the
// first burst then four more. A healthy Redis's late reply is waited for (up to the hard
// deadline), never sent to the failure policy: exactly the limit each time, and no 503 under
// `closed`. With the old 50 ms budget (below today's floor of 100 ms, with which the gateway does
// not start) the first burst admitted 1,491 of 1,000.
const exactnessEnv = JSON.parse(process.env.EXACTNESS_ENV ?? '{}') as Record<string, string>;
for (const policy of ['local', 'closed'] as const) {
  describe(`exact from the first request, fresh gateway processes under a CPU hog, RATE_LIMIT_ON_REDIS_FAILURE=${policy}`, { skip: redisSkipReason() }, () => {
    test('the first burst and 4 repetitions of 3,000 parallel requests: exactly the limit each time', { timeout: 600_000 }, async () => {
      const outcomes = await burstsOnFreshGateways({
        policy,
        hog: true,
        repetitions: 4,
        requests: 3000,
        env: exactnessEnv,
        report: (line) => console.log(`# ${line}`),
      });
      assert.deepEqual(
        outcomes.map((outcome) => outcome.counts),
        outcomes.map((outcome) => outcome.expected),
      );
    });
  });
}
