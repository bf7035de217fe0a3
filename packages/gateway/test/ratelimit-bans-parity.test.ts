import assert from 'node:assert/strict';
import { connectedRedisClient, replay as replayTimeline, timeline as timelineOf, TIMELINE_START } from './support/index.js';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { createMemoryLimiter } from '../src/ratelimit/memory/index.js';
import type { Limiter, Policy, RateDecision } from '../src/ratelimit/index.js';
import { createRedisLimiter } from '../src/ratelimit/redis/index.js';
import type { RedisClient } from '../src/redis/index.js';

/** Small windows and a quick ban, so random walks collect strikes, get banned and come back. */
const BANNING: Policy = {
  name: 'test',
  windows: [
    { name: 'minute', limit: 7, windowMs: 10_000, buckets: 10 },
    { name: 'day', limit: 30, windowMs: 100_000, buckets: 10 },
  ],
  ban: { strikes: 3, strikeWindowMs: 5_000, banMs: 8_000 },
};

/** Increasing times, each with one of two keys of one account. */
const timeline = (seed: number, count: number) =>
  timelineOf(seed, count, {
    startAt: TIMELINE_START,
    startSpreadMs: 100_000,
    gaps: [
      { below: 0.6, withinMs: 300 },
      { below: 0.9, withinMs: 3_000 },
      { below: 1, withinMs: 30_000 },
    ],
    step: (at, next) => ({ at, keyId: next() < 0.7 ? 'k1' : 'k2' }),
  });

const replay = async (make: (now: () => number) => Limiter, requests: readonly { at: number; keyId: string }[]) =>
  (await replayTimeline(make, requests, ({ keyId }) => ({ subject: 'acct', keyId, policy: BANNING }))).checks;

describe('bans and strikes: the Redis script gives the in-process answers', { skip: redisSkipReason() }, () => {
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

  test('property: identical decisions, bans and retry times on random timelines of two keys of one account', async () => {
    let banned = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const requests = timeline(seed, 250);
      const inProcess = await replay((now) => createMemoryLimiter({ now }), requests);
      const shared = await replay((now) => createRedisLimiter(client, { prefix: `bans${seed}`, now }), requests);
      for (let i = 0; i < requests.length; i++) {
        const a = inProcess[i] as RateDecision;
        const b = shared[i] as RateDecision;
        assert.deepEqual(
          { allowed: b.allowed, banned: b.banned, retryAt: b.retryAt, windows: b.windows },
          { allowed: a.allowed, banned: a.banned, retryAt: a.retryAt, windows: a.windows },
          `seed ${seed}, request ${i} (${requests[i]?.keyId} at ${requests[i]?.at})`,
        );
        if (a.banned) banned += 1;
      }
    }
    assert.ok(banned > 0, 'the timelines reach bans');
  });
});
