import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { redisSkipReason } from '@animal-store/testkit';
import { createCalendar } from '../src/ratelimit/calendar.js';
import { createMemoryLimiter } from '../src/ratelimit/memory/index.js';
import { monthWindow, type Limiter, type LimitRequest, type Policy, type RateDecision } from '../src/ratelimit/index.js';
import { createRedisLimiter } from '../src/ratelimit/redis/index.js';
import { decisionShape, privateRedisClient, replay as replayTimeline, timeline as timelineOf } from './support/index.js';

// Issue 21: costs, monthly quotas, operation ceilings (layers) and shadow plans, decided alike in
// process and in Redis, on random timelines that cross a month's end and a change of daylight time.

const calendar = createCalendar('Europe/Berlin');
const sliding = (minute: number, day: number) => [
  { name: 'minute' as const, limit: minute, windowMs: 10_000, buckets: 10 },
  { name: 'day' as const, limit: day, windowMs: 100_000, buckets: 10 },
];
const PLAN: Policy = { name: 'plan', windows: [...sliding(12, 40), monthWindow(150)], ban: { strikes: 6, strikeWindowMs: 5_000, banMs: 7_000 } };
const CEILINGS: Record<string, Policy> = {
  createPet: { name: 'createPet', windows: [{ name: 'minute', limit: 6, windowMs: 10_000, buckets: 10 }, monthWindow(60)], ban: undefined },
  listPets: { name: 'listPets', windows: [{ name: 'minute', limit: 30, windowMs: 10_000, buckets: 10 }], ban: undefined },
};

interface Step {
  readonly at: number;
  readonly request: LimitRequest;
}

/** From 23 October 2026 (Berlin's summer time ends on the 25th) over the end of October. */
const timeline = (seed: number, count: number): Step[] =>
  timelineOf(seed, count, {
    startAt: Date.UTC(2026, 9, 23),
    startSpreadMs: 86_400_000,
    gaps: [
      { below: 0.5, withinMs: 50 },
      { below: 0.9, withinMs: 3_000 },
      { below: 0.97, withinMs: 60_000 },
      { below: 1, withinMs: 30 * 3_600_000 },
    ],
    step: (at, next) => {
      const operation = next() < 0.6 ? 'createPet' : next() < 0.5 ? 'listPets' : undefined;
      const account = next() < 0.75 ? 'acct' : 'trial';
      return {
        at,
        request: {
          subject: account,
          keyId: `${account}-${next() < 0.7 ? 1 : 2}`,
          policy: PLAN,
          cost: 1 + Math.floor(next() * 5),
          ...(account === 'trial' ? { shadow: true } : {}),
          ...(operation === undefined ? {} : { layers: [{ subject: `op:${operation}`, policy: CEILINGS[operation] as Policy }] }),
        },
      };
    },
  });

const replay = async (make: (now: () => number) => Limiter, steps: readonly Step[]) => (await replayTimeline(make, steps, (step) => step.request)).checks;

/**
 * The month windows against a model that knows only the rule: an admitted request spends its cost
 * of its plan's month (not where the plan was in shadow and would have refused) and 1 of each
 * ceiling's; a refusal spends nothing; a month starts at local midnight on the first.
 */
function assertMonthsCharged(steps: readonly Step[], decisions: readonly RateDecision[]): void {
  const used = new Map<string, number>();
  steps.forEach((step, i) => {
    const decided = decisions[i] as RateDecision;
    const month = calendar.monthOf(step.at).start;
    const layers = [{ subject: step.request.subject, policy: step.request.policy }, ...(step.request.layers ?? [])];
    for (const [l, layer] of layers.entries()) {
      const limit = layer.policy.windows.find((window) => window.name === 'month')?.limit;
      if (limit === undefined) continue;
      const key = `${layer.subject}@${month}`;
      const reading = decided.windows.find((window) => window.name === 'month' && window.layer === (l === 0 ? undefined : layer.policy.name));
      const charged = decided.allowed && !(l === 0 && decided.shadow === true);
      if (charged) used.set(key, (used.get(key) ?? 0) + (l === 0 ? (step.request.cost ?? 1) : 1));
      assert.equal(reading?.remaining, Math.max(0, limit - (used.get(key) ?? 0)), `request ${i}, ${layer.subject}'s month`);
      assert.ok((used.get(key) ?? 0) <= limit, `request ${i}: ${layer.subject} over its month`);
    }
  });
}

const shape = decisionShape('kind', 'shadow', 'retryAt', 'windows', 'binding');

test('property: in process, layers, months, costs and shadow keep every month to its rule', async () => {
  for (let seed = 1; seed <= 20; seed++) {
    const steps = timeline(seed, 400);
    const decisions = await replay((now) => createMemoryLimiter({ now, calendar }), steps);
    assertMonthsCharged(steps, decisions);
    assert.ok(
      decisions.some((d) => d.binding?.layer === 'createPet'),
      `seed ${seed}: an operation ceiling refused`,
    );
    assert.ok(
      decisions.some((d) => d.shadow === true),
      `seed ${seed}: a shadow plan would have refused`,
    );
  }
});

describe('layers, months and shadow in Redis', { skip: redisSkipReason() }, () => {
  const redis = privateRedisClient();

  test('property: the Redis script gives the in-process decisions, exactly', async () => {
    const seen = { months: 0, ceilings: 0, shadow: 0, quota: 0 };
    for (let seed = 1; seed <= 12; seed++) {
      const steps = timeline(seed, 400);
      const inProcess = await replay((now) => createMemoryLimiter({ now, calendar }), steps);
      const shared = await replay((now) => createRedisLimiter(redis.client(), { prefix: `layers${seed}`, now, calendar }), steps);
      for (let i = 0; i < steps.length; i++) {
        assert.deepEqual(shape(shared[i] as RateDecision), shape(inProcess[i] as RateDecision), `seed ${seed}, request ${i}`);
      }
      assertMonthsCharged(steps, shared);
      seen.months += new Set(steps.map((step) => calendar.monthOf(step.at).start)).size > 1 ? 1 : 0;
      seen.ceilings += shared.filter((d) => d.binding?.layer !== undefined && !d.allowed).length;
      seen.shadow += shared.filter((d) => d.shadow === true).length;
      seen.quota += shared.filter((d) => d.binding?.name === 'month' && !d.allowed).length;
    }
    assert.ok(seen.months > 0 && seen.ceilings > 0 && seen.shadow > 0 && seen.quota > 0, JSON.stringify(seen));
  });
});
