import assert from 'node:assert/strict';
import { connectedRedisClient, decisionShape, instants, replay as replayTimeline } from './support/index.js';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { createMemoryLimiter } from '../src/ratelimit/memory/index.js';
import type { Limiter, Policy, RateDecision } from '../src/ratelimit/index.js';
import { createRedisLimiter } from '../src/ratelimit/redis/index.js';
import { createSharedLimiter } from '../src/ratelimit/front/index.js';
import type { RedisClient } from '../src/redis/index.js';

// The usage endpoint's peek: the decision a request would get, by the same code, charging
// nothing. Held here to three things: a peek changes no later decision, it says what the request
// at the same instant gets, and the Redis script's peek answers as the in-process one and writes nothing.

const POLICY: Policy = {
  name: 'test',
  windows: [
    { name: 'minute', limit: 7, windowMs: 10_000, buckets: 10 },
    { name: 'day', limit: 30, windowMs: 100_000, buckets: 10 },
  ],
  ban: { strikes: 4, strikeWindowMs: 5_000, banMs: 20_000 },
};

const shape = decisionShape('allowed', 'banned', 'retryAt', 'windows');

/** Bursts, pauses and steady stretches, with pauses up to 40 s. */
const timeline = (seed: number, count: number) => instants(seed, count, 40_000);

/** At each instant: a peek (when `withPeeks`), then the request. Returns both, in order. */
const replay = (make: (now: () => number) => Limiter, times: readonly number[], withPeeks: boolean) =>
  replayTimeline(make, times, () => ({ subject: 'acct', keyId: 'key', policy: POLICY }), { peeks: withPeeks });

/** The peek says what the request at the same instant gets: admitted, refused or banned, and what is left before it. */
function assertPeeksForetell(peeks: readonly RateDecision[], checks: readonly RateDecision[], label: string): void {
  for (let i = 0; i < checks.length; i++) {
    const peek = peeks[i] as RateDecision;
    const check = checks[i] as RateDecision;
    assert.equal(peek.allowed, check.allowed, `${label} ${i}: admitted`);
    if (peek.banned) assert.ok(check.banned, `${label} ${i}: a ban seen by the peek holds`);
    if (check.allowed) {
      assert.deepEqual(
        peek.windows.map((w) => w.remaining),
        check.windows.map((w) => w.remaining + 1),
        `${label} ${i}: remaining before the charge`,
      );
    } else if (!check.banned) {
      assert.deepEqual(shape(peek), shape(check), `${label} ${i}: the same refusal`);
    }
  }
}

test('in process: peeks change no decision, and each foretells the request at its instant', async () => {
  let seen = { allowed: 0, refused: 0, banned: 0 };
  for (let seed = 1; seed <= 30; seed++) {
    const times = timeline(seed, 300);
    const plain = await replay((now) => createMemoryLimiter({ now }), times, false);
    const peeked = await replay((now) => createMemoryLimiter({ now }), times, true);
    assert.deepEqual(peeked.checks.map(shape), plain.checks.map(shape), `seed ${seed}`);
    assertPeeksForetell(peeked.peeks, peeked.checks, `seed ${seed}`);
    for (const d of plain.checks)
      seen = { ...seen, [d.banned ? 'banned' : d.allowed ? 'allowed' : 'refused']: seen[d.banned ? 'banned' : d.allowed ? 'allowed' : 'refused'] + 1 };
  }
  assert.ok(seen.allowed > 0 && seen.refused > 0 && seen.banned > 0, JSON.stringify(seen));
});

test('a peek through the cache of refusals counts no strike there and is not cached', async () => {
  let now = 1_800_000_000_000;
  const run = async (peeksBetween: number) => {
    const limiter = createSharedLimiter({
      shared: createMemoryLimiter({ now: () => now }),
      onFailure: 'closed',
      localShare: 1,
      denyCacheMs: 1000,
      now: () => now,
    });
    const outcomes: string[] = [];
    for (let i = 0; i < 12; i++) {
      for (let p = 0; p < peeksBetween; p++) await limiter.check({ subject: 's', keyId: 'k', policy: POLICY, peek: true });
      const d = await limiter.check({ subject: 's', keyId: 'k', policy: POLICY });
      outcomes.push(d.banned ? 'banned' : d.allowed ? 'ok' : 'refused');
    }
    return outcomes;
  };
  now += 1;
  const plain = await run(0);
  now += 1_000_000;
  assert.deepEqual(await run(5), plain);
  assert.deepEqual(plain.slice(0, 8), ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'refused'], 'the cache of refusals was in play');
});

describe('the Redis script peeks as the in-process limiter does, and writes nothing', { skip: redisSkipReason() }, () => {
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

  test('property: the same peeks and decisions as in process on random timelines', async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const times = timeline(seed, 200);
      const inProcess = await replay((now) => createMemoryLimiter({ now }), times, true);
      const shared = await replay((now) => createRedisLimiter(client, { prefix: `peek${seed}`, now }), times, true);
      for (let i = 0; i < times.length; i++) {
        assert.deepEqual(shape(shared.peeks[i] as RateDecision), shape(inProcess.peeks[i] as RateDecision), `seed ${seed}, peek ${i}`);
        assert.deepEqual(shape(shared.checks[i] as RateDecision), shape(inProcess.checks[i] as RateDecision), `seed ${seed}, request ${i}`);
      }
      assertPeeksForetell(shared.peeks, shared.checks, `redis seed ${seed}`);
    }
  });

  test('a peek batched with charges answers in arrival order, as alone', async () => {
    let now = 1_800_000_000_500;
    const limiter = createRedisLimiter(client, { prefix: 'batch', now: () => now });
    const request = { subject: 'b', keyId: 'k', policy: POLICY };
    const answers = await Promise.all([
      limiter.check({ ...request, peek: true }),
      limiter.check(request),
      limiter.check({ ...request, peek: true }),
      limiter.check(request),
      limiter.check({ ...request, peek: true }),
    ]);
    assert.deepEqual(
      answers.map((d) => d.windows[0]?.remaining),
      [7, 6, 6, 5, 5],
    );
    now += 1;
  });

  test('a peek writes nothing: no key for a new account, the same state and no longer TTL for a known one', async () => {
    const admin = new Redis(redis.url);
    try {
      let now = 1_800_000_000_500;
      const limiter = createRedisLimiter(client, { prefix: 'ro', now: () => now });
      await limiter.check({ subject: 'fresh', keyId: 'k', policy: POLICY, peek: true });
      assert.deepEqual(await admin.keys('ro:*'), [], 'a peek at a new account creates nothing');
      for (let i = 0; i < 9; i++) await limiter.check({ subject: 'known', keyId: 'k', policy: POLICY }); // admitted, refused, strikes
      const before = await admin.getBuffer('ro:{known}:rl');
      const ttlBefore = await admin.pttl('ro:{known}:rl');
      now += 15_000; // buckets leave the window: a charge would drop them and write
      const peek = await limiter.check({ subject: 'known', keyId: 'k', policy: POLICY, peek: true });
      assert.equal(peek.allowed, true);
      assert.deepEqual(await admin.getBuffer('ro:{known}:rl'), before, 'the state is unchanged');
      assert.ok((await admin.pttl('ro:{known}:rl')) <= ttlBefore, 'the TTL was not renewed');
    } finally {
      admin.disconnect();
    }
  });
});
