import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { redisSkipReason } from '@animal-store/testkit';
import { minuteAndDay } from '../src/ratelimit/index.js';
import { createRedisLimiter } from '../src/ratelimit/redis/index.js';
import type { RedisClient } from '../src/redis/index.js';
import { privateRedisClient } from './support/index.js';

// A script call that Redis starts later than the command budget after it was sent decides nothing
// (its deadline, on Redis's clock). This process learns Redis's clock from replies, each read a
// little after Redis wrote it, and keeps the best reading. A cold process, under a CPU hog, read
// its one warm-up reply hundreds of ms late: its first calls' deadlines came that much early, a
// healthy Redis started some of them after it, and 92 requests of CI's first burst under
// RATE_LIMIT_ON_REDIS_FAILURE=closed were answered 503. The warm-up reads the clock more than once.

const BUDGET_MS = 500;
/** How late this process reads the first reply of its life (a cold start on a busy host). */
const LATE_MS = 300;

describe('the deadline of the first calls after the warm-up', { skip: redisSkipReason() }, () => {
  const redis = privateRedisClient(2000);

  test(`its first reply read ${LATE_MS} ms late, the next call's deadline still leaves Redis about the whole budget`, async () => {
    const client = redis.client();
    const deadlines: number[] = [];
    let replies = 0;
    const lateFirst: RedisClient = {
      ...client,
      defineScript(name, lua, options) {
        const run = client.defineScript(name, lua, options);
        return async (keys, args) => {
          deadlines.push(Number(args[4]) - Date.now());
          const reply = await run(keys, args);
          if (replies++ === 0) await delay(LATE_MS);
          return reply;
        };
      },
    };
    const limiter = createRedisLimiter(lateFirst, { prefix: 'clock-warm', budgetMs: BUDGET_MS });
    await limiter.warm?.();
    await limiter.check({ subject: 'acme', keyId: 'k1', policy: minuteAndDay('pro', 100, 1000) });
    const first = deadlines.at(-1) as number;
    assert.ok(first > BUDGET_MS - 100, `the call's deadline was ${first} ms after it was sent (budget ${BUDGET_MS} ms)`);
  });
});
