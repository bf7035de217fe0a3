import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { redisSkipReason } from '@animal-store/testkit';
import { createMemoryLimiter } from '../src/ratelimit/memory/index.js';
import type { Limiter, LimitRequest, Policy, RateDecision } from '../src/ratelimit/index.js';
import { createRedisLimiter } from '../src/ratelimit/redis/index.js';
import { createSharedLimiter } from '../src/ratelimit/front/index.js';
import {
  assertNeverOverLimit as assertUnitsWithinLimits,
  burstyGaps,
  decisionShape,
  privateRedisClient,
  replay as replayTimeline,
  timeline as timelineOf,
  TIMELINE_START,
} from './support/index.js';

// Issue 21, cost per operation: a request spends `cost` units of every window, whole or not at all.

/** Small windows so random walks cross many window edges quickly; strikes to reach bans too. */
const POLICY: Policy = {
  name: 'test',
  windows: [
    { name: 'minute', limit: 12, windowMs: 10_000, buckets: 10 },
    { name: 'day', limit: 40, windowMs: 100_000, buckets: 10 },
  ],
  ban: { strikes: 6, strikeWindowMs: 5_000, banMs: 7_000 },
};

interface Step {
  readonly at: number;
  readonly cost: number;
  readonly keyId: string;
}

/** Increasing times with costs from 1 to 6 (some above what is left), from two keys of one account. */
const timeline = (seed: number, count: number): Step[] =>
  timelineOf(seed, count, {
    startAt: TIMELINE_START,
    startSpreadMs: 100_000,
    gaps: burstyGaps(30_000),
    step: (at, next) => ({ at, cost: 1 + Math.floor(next() * 6), keyId: next() < 0.7 ? 'k1' : 'k2' }),
  });

const replay = async (make: (now: () => number) => Limiter, steps: readonly Step[], subject: string) =>
  (await replayTimeline(make, steps, (step) => ({ subject, keyId: step.keyId, policy: POLICY, cost: step.cost }))).checks;

/** In every sliding interval of each window, the units admitted stay within its limit. */
const assertNeverOverLimit = (steps: readonly Step[], decisions: readonly RateDecision[]) =>
  assertUnitsWithinLimits(
    steps.filter((_, i) => decisions[i]?.allowed),
    POLICY,
  );

const shape = decisionShape('kind', 'retryAt', 'windows');

test('a request that does not fit whole is refused and charges nothing; one that never fits gets no Retry-After', async () => {
  const now = 1_800_000_000_000;
  const limiter = createMemoryLimiter({ now: () => now });
  const ask = (cost: number) => limiter.check({ subject: 'acme', keyId: undefined, policy: POLICY, cost });
  assert.deepEqual(
    (await ask(5)).windows.map((w) => w.remaining),
    [7, 35],
  );
  assert.deepEqual(
    (await ask(5)).windows.map((w) => w.remaining),
    [2, 30],
  );
  const refused = await ask(5);
  assert.equal(refused.kind, 'limited');
  assert.deepEqual(
    refused.windows.map((w) => w.remaining),
    [2, 30],
    'nothing charged',
  );
  assert.ok(refused.retryAt !== undefined);
  assert.equal((await ask(2)).kind, 'allowed', 'what is left still admits a cheaper request');
  const never = await ask(13);
  assert.equal(never.kind, 'limited');
  assert.equal(never.retryAt, undefined, 'more than the window holds: waiting will not help');
});

test('property: in process, random costs never admit more units than a window holds', async () => {
  for (let seed = 1; seed <= 30; seed++) {
    const steps = timeline(seed, 300);
    const decisions = await replay((now) => createMemoryLimiter({ now }), steps, 'acct');
    assertNeverOverLimit(steps, decisions);
    assert.ok(decisions.some((d) => d.kind === 'limited'));
  }
});

describe('costs in Redis', { skip: redisSkipReason() }, () => {
  const redis = privateRedisClient();

  test('property: the Redis script gives the in-process decisions on random timelines of costs and bans', async () => {
    let banned = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const steps = timeline(seed, 250);
      const inProcess = await replay((now) => createMemoryLimiter({ now }), steps, 'acct');
      const shared = await replay((now) => createRedisLimiter(redis.client(), { prefix: `cost${seed}`, now }), steps, 'acct');
      for (let i = 0; i < steps.length; i++) {
        assert.deepEqual(shape(shared[i] as RateDecision), shape(inProcess[i] as RateDecision), `seed ${seed}, request ${i}`);
        if (inProcess[i]?.kind === 'banned') banned += 1;
      }
      assertNeverOverLimit(steps, shared);
    }
    assert.ok(banned > 0, 'the timelines reach bans');
  });

  test('a refusal held locally at one cost does not refuse a cheaper request that fits', async () => {
    let now = 1_800_000_000_000;
    const limiter = createSharedLimiter({
      shared: createRedisLimiter(redis.client(), { prefix: 'held', now: () => now }),
      onFailure: 'closed',
      localShare: 0.5,
      denyCacheMs: 1000,
      now: () => now,
    });
    const request = (cost: number): LimitRequest => ({ subject: 'acme', keyId: 'k1', policy: POLICY, cost });
    assert.equal((await limiter.check(request(10))).kind, 'allowed');
    assert.equal((await limiter.check(request(5))).kind, 'limited', '2 units left');
    now += 10;
    assert.equal((await limiter.check(request(2))).kind, 'allowed', 'asked of Redis, not answered from the held refusal');
    assert.equal((await limiter.check(request(1))).kind, 'limited');
  });
});
