import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { connectedRedisClient } from './support/index.js';
import type { LimitRequest, Policy } from '../src/ratelimit/index.js';
import { createRedisLimiter } from '../src/ratelimit/redis/index.js';
import type { RedisClient } from '../src/redis/index.js';

/**
 * A plan large enough for leases (a 1024th of 2,048 is 2 units), whose ban comes at the 953rd
 * strike: 3,000 requests on it meet 952 refusals of the limit's own, and one refusal more (one
 * made while units were left, leased to the other instance) bans the key for 300 s.
 */
const POLICY: Policy = {
  name: 'scale',
  windows: [
    { name: 'minute', limit: 2_048, windowMs: 60_000, buckets: 60 },
    { name: 'day', limit: 1_000_000, windowMs: 86_400_000, buckets: 60 },
  ],
  ban: { strikes: 3_000 - 2_048 + 1, strikeWindowMs: 60_000, banMs: 300_000 },
};

describe('leases at the limit, two instances on one Redis', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  const clients: RedisClient[] = [];

  before(async () => {
    redis = await startRedis();
    for (let i = 0; i < 2; i++) clients.push(await connectedRedisClient(redis.url, 2000));
  });
  after(async () => {
    for (const client of clients) await client.close();
    await redis?.close();
  });

  test('3,000 parallel requests on an account of 2,048 a minute admit exactly 2,048, and ban no key (5 runs)', async () => {
    for (let run = 1; run <= 5; run++) {
      const instances = clients.map((client) => createRedisLimiter(client, { prefix: `limit${run}`, leases: { maxUnits: 64 } }));
      const decided = await Promise.all(
        Array.from({ length: 3_000 }, (_, i) => (instances[i % 2] ?? instances[0])?.check({ subject: 'acct', keyId: 'k', policy: POLICY })),
      );
      const admitted = decided.filter((d) => d?.allowed === true).length;
      const banned = decided.filter((d) => d?.banned === true).length;
      assert.deepEqual({ admitted, banned }, { admitted: 2_048, banned: 0 }, `run ${run}`);
      // Every refusal was the limit's own: the key is not banned, and nothing is left.
      const after = await instances[1]?.check({ subject: 'acct', keyId: 'k', policy: POLICY, peek: true });
      assert.deepEqual([after?.kind, after?.windows[0]?.remaining], ['limited', 0], `run ${run}: after the burst`);
    }
  });

  test('a refusal only for units leased to an instance that vanished counts no strike, until the lease lapses', async () => {
    let now = 1_800_000_000_100;
    // A ban at the first strike: any refusal counted as one bans the key.
    const policy: Policy = { ...POLICY, ban: { strikes: 1, strikeWindowMs: 60_000, banMs: 300_000 } };
    const request: LimitRequest = { subject: 'gone', keyId: 'k', policy };
    const holderClient = await connectedRedisClient(redis.url, 2000);
    const a = createRedisLimiter(holderClient, { prefix: 'vanish', now: () => now, leases: { maxUnits: 64 } });
    const b = createRedisLimiter(clients[1] as RedisClient, { prefix: 'vanish', now: () => now, leases: { maxUnits: 64 } });
    // A is busy: its second request is granted a lease of 1 unit, its third uses it, its fourth is
    // granted 2 units (a 1024th of the limit); then A vanishes, holding them.
    for (let i = 0; i < 4; i++) assert.equal((await a.check(request)).allowed, true);
    await holderClient.close();
    let admitted = 0;
    while ((await b.check(request)).allowed) admitted++;
    assert.equal(admitted, 2_048 - 4 - 2, 'B admitted all but the units A holds');
    // Refused for A's units: asked for, never given back, the refusal is the limit's only once they lapse.
    const refused = await b.check(request);
    assert.deepEqual([refused.kind, refused.banned], ['limited', false]);
    now += 4_000;
    assert.equal((await b.check(request)).kind, 'banned', "lapsed, A's units count as used: the refusal is the limit's");
  });
});
