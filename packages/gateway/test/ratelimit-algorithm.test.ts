import assert from 'node:assert/strict';
import { assertNeverOverLimit, connectedRedisClient, instants, replay as replayTimeline } from './support/index.js';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { createMemoryLimiter } from '../src/ratelimit/memory/index.js';
import type { Limiter, Policy, RateDecision } from '../src/ratelimit/index.js';
import { createRedisLimiter } from '../src/ratelimit/redis/index.js';
import type { RedisClient } from '../src/redis/index.js';

/** Small windows so random walks cross many window edges quickly. */
const POLICY: Policy = {
  name: 'test',
  windows: [
    { name: 'minute', limit: 7, windowMs: 10_000, buckets: 10 },
    { name: 'day', limit: 30, windowMs: 100_000, buckets: 10 },
  ],
  ban: undefined,
};

/** Increasing timestamps: bursts, pauses and steady stretches. */
const timeline = (seed: number, count: number) => instants(seed, count, 60_000);

const replay = async (make: (now: () => number) => Limiter, times: readonly number[], subject: string) =>
  (await replayTimeline(make, times, () => ({ subject, keyId: undefined, policy: POLICY }))).checks;

test('property: random timelines never admit more than the limit in any sliding interval (in process)', async () => {
  for (let seed = 1; seed <= 40; seed++) {
    const times = timeline(seed, 400);
    const decisions = await replay((now) => createMemoryLimiter({ now }), times, 'acct');
    const admitted = times.filter((_, i) => decisions[i]?.allowed);
    assertNeverOverLimit(admitted, POLICY);
    assert.ok(admitted.length > 0);
  }
});

test('adversarial: a full burst just before a window edge, then a greedy client, stays within the limit', async () => {
  let now = 1_800_000_009_990; // 10 ms before a 10 s edge
  const limiter = createMemoryLimiter({ now: () => now });
  const admitted: number[] = [];
  for (let i = 0; i < 7; i++) if ((await limiter.check({ subject: 'greedy', keyId: undefined, policy: POLICY })).allowed) admitted.push(now);
  assert.equal(admitted.length, 7);
  for (now += 11; now < 1_800_000_040_000; now += 7) {
    if ((await limiter.check({ subject: 'greedy', keyId: undefined, policy: POLICY })).allowed) admitted.push(now);
  }
  assertNeverOverLimit(admitted, POLICY);
  // Under-admission is bounded by one bucket: over 30 s the greedy client still got at least 2 full windows' worth.
  assert.ok(admitted.length >= 7 * 3 - 7, `admitted ${admitted.length}`);
});

test('a clock stepping back does not reset a window', async () => {
  let now = 1_800_000_000_500;
  const limiter = createMemoryLimiter({ now: () => now });
  for (let i = 0; i < 7; i++) await limiter.check({ subject: 'c', keyId: undefined, policy: POLICY });
  now -= 60_000;
  assert.equal((await limiter.check({ subject: 'c', keyId: undefined, policy: POLICY })).allowed, false);
});

describe('the Redis script gives the in-process answers', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  let client: RedisClient;
  before(async () => {
    redis = await startRedis();
    client = await connectedRedisClient(redis.url, 1000);
  });
  after(async () => {
    await client?.close();
    await redis?.close();
  });

  test('property: identical decisions on the same random timelines, and never over the limit', async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const times = timeline(seed, 250);
      const inProcess = await replay((now) => createMemoryLimiter({ now }), times, 'acct');
      const shared = await replay((now) => createRedisLimiter(client, { prefix: `p${seed}`, now }), times, 'acct');
      for (let i = 0; i < times.length; i++) {
        const a = inProcess[i] as RateDecision;
        const b = shared[i] as RateDecision;
        assert.deepEqual(
          { allowed: b.allowed, retryAt: b.retryAt, windows: b.windows },
          { allowed: a.allowed, retryAt: a.retryAt, windows: a.windows },
          `seed ${seed}, request ${i} at ${times[i]}`,
        );
      }
      assertNeverOverLimit(
        times.filter((_, i) => shared[i]?.allowed),
        POLICY,
      );
    }
  });

  test('a Redis clock stepping back does not reset a window', async () => {
    let now = 1_800_000_000_500;
    const limiter = createRedisLimiter(client, { prefix: 'step', now: () => now });
    for (let i = 0; i < 7; i++) assert.equal((await limiter.check({ subject: 'c', keyId: undefined, policy: POLICY })).allowed, true);
    now -= 60_000;
    assert.equal((await limiter.check({ subject: 'c', keyId: undefined, policy: POLICY })).allowed, false);
  });

  test("an account's state is one small string, written once per call however many of its requests the call holds", async () => {
    const admin = new Redis(redis.url);
    try {
      let now = 1_800_000_000_500;
      const limiter = createRedisLimiter(client, { prefix: 'one', now: () => now });
      await admin.config('RESETSTAT');
      const decisions = await Promise.all(Array.from({ length: 20 }, () => limiter.check({ subject: 'busy', keyId: 'k', policy: POLICY })));
      assert.deepEqual(
        decisions.map((d) => d.allowed),
        Array.from({ length: 20 }, (_, i) => i < 7),
      );
      assert.equal(await admin.type('one:{busy}:rl'), 'string');
      const stats = await admin.info('commandstats');
      const scriptCalls = [...stats.matchAll(/cmdstat_(?:eval|evalsha|fcall):calls=(\d+),/g)].reduce((sum, m) => sum + Number(m[1]), 0);
      assert.equal(scriptCalls, 1, 'the 20 requests share one call');
      assert.match(stats, /cmdstat_set:calls=1,/, 'the account is written once');
      assert.match(stats, /cmdstat_get:calls=1,/, 'and read once');
      // The window is 10 s of 1 s buckets, counted whole: the first bucket has left 11 s later.
      now += 10_000;
      assert.equal((await limiter.check({ subject: 'busy', keyId: 'k', policy: POLICY })).allowed, false, 'the state is read back');
      now += 1_000;
      assert.equal((await limiter.check({ subject: 'busy', keyId: 'k', policy: POLICY })).allowed, true, 'and its first bucket leaves on time');
    } finally {
      admin.disconnect();
    }
  });

  test('a key left in the layout of an older release (a hash) is converted and replaced, not an error', async () => {
    const admin = new Redis(redis.url);
    try {
      await admin.hset('old:{legacy}:rl', 'mt', '3', 'mf', '180000000', 'ml', '180000000');
      const limiter = createRedisLimiter(client, { prefix: 'old', now: () => 1_800_000_000_500 });
      const decision = await limiter.check({ subject: 'legacy', keyId: 'k', policy: POLICY });
      assert.equal(decision.allowed, true);
      assert.equal(decision.windows[0]?.remaining, 6);
      assert.equal(await admin.type('old:{legacy}:rl'), 'string');
    } finally {
      admin.disconnect();
    }
  });

  test('every hash the script writes expires: refusals, strikes and bans included', async () => {
    const admin = new Redis(redis.url);
    try {
      const limiter = createRedisLimiter(client, { prefix: 'ttl' });
      const banning: Policy = { ...POLICY, ban: { strikes: 2, strikeWindowMs: 60_000, banMs: 300_000 } };
      for (let i = 0; i < 12; i++) await limiter.check({ subject: 'busy', keyId: 'k1', policy: banning });
      const closed: Policy = { ...POLICY, windows: POLICY.windows.map((w) => ({ ...w, limit: 0 })), ban: banning.ban };
      for (let i = 0; i < 3; i++) await limiter.check({ subject: 'never-admitted', keyId: 'k2', policy: closed });
      const keys = await admin.keys('ttl:*');
      assert.deepEqual(keys.sort(), ['ttl:{busy}:rl', 'ttl:{never-admitted}:rl']);
      for (const key of keys) assert.ok((await admin.pttl(key)) >= 300_000 - 1000, `${key} has no TTL that outlives its ban`);
    } finally {
      admin.disconnect();
    }
  });
});
