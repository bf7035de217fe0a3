import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { connectedRedisClient } from './support/index.js';
import { createAccountBook } from '../src/admin/book/index.js';
import { subjectOf } from '../src/admin/book/limits-reading.js';
import { createMemoryLedger } from '../src/admin/ledger/index.js';
import { createCalendar, dayWindow, minuteWindow, monthWindow, type LimitRequest, type Policy } from '../src/ratelimit/index.js';
import { createRedisLimiter } from '../src/ratelimit/redis/index.js';
import type { RedisClient } from '../src/redis/index.js';

/** A plan large enough for leases (2 units at most: a 1024th of 2,048), with a monthly quota billed. */
const POLICY: Policy = { name: 'enterprise', windows: [minuteWindow(2_048), dayWindow(1_000_000), monthWindow(10_000_000)], ban: undefined };

describe('a gateway process killed while it holds a lease', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  let client: RedisClient;

  before(async () => {
    redis = await startRedis();
    client = await connectedRedisClient(redis.url, 2000);
  });
  after(async () => {
    await client?.close();
    await redis?.close();
  });

  test('its units stay counted by the limits, and billing shows them apart, never as used', async () => {
    let now = Date.UTC(2026, 10, 10, 12);
    const request: LimitRequest = { subject: subjectOf('acme'), keyId: 'k', policy: POLICY };
    const ledger = createMemoryLedger();
    await ledger.write({ day: '2026-11-10', sightings: [{ account: 'acme', keyId: 'k', plan: 'enterprise', seen: '2026-11-10' }], shadowRefusals: [] });
    // The admin API's reading, on another gateway process (no leases of its own).
    const other = createRedisLimiter(client, { prefix: 'killed', now: () => now });
    const book = createAccountBook(
      {
        limiter: other,
        plans: { forKey: () => ({ policy: POLICY, cost: 1, shadow: false, layers: [] }), ceilings: () => [], costs: () => ({}) },
        calendar: createCalendar(),
        now: () => now,
        shadowPlans: new Set(),
        liftBan: () => Promise.resolve(false),
      },
      ledger,
    );
    const billed = async () => (await book.billing()).accounts.map(({ units, unaccounted }) => ({ units, unaccounted }));

    // A is busy: its second request is granted a lease of 1 unit, its third uses it, its fourth is
    // granted 2 units; then A is killed, holding them, and never gives them back.
    const holderClient = await connectedRedisClient(redis.url, 2000);
    const a = createRedisLimiter(holderClient, { prefix: 'killed', now: () => now, leases: { maxUnits: 64 } });
    for (let i = 0; i < 4; i++) assert.equal((await a.check(request)).allowed, true);
    await holderClient.close();
    // 4 units used, 2 leased and never accounted for: billed apart, while the quota counts all 6.
    assert.deepEqual(await billed(), [{ units: 4, unaccounted: 2 }]);
    const month = (await other.check({ ...request, peek: true })).windows.find((w) => w.kind === 'month');
    assert.equal(month?.remaining, 10_000_000 - 6);

    // A minute on, the lease's record is given up by the next request to meet the account: its units
    // have left the minute's window, stay in the day's and the month's, and stay apart in billing.
    now += 61_000;
    const next = await other.check(request);
    assert.deepEqual(
      next.windows.map((w) => w.limit - w.remaining),
      [1, 7, 7],
    );
    assert.deepEqual(await billed(), [{ units: 5, unaccounted: 2 }]);
  });
});
