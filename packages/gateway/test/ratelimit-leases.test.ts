import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { connectedRedisClient, seededRandom } from './support/index.js';
import { createMemoryLimiter } from '../src/ratelimit/memory/index.js';
import type { Limiter, LimitRequest, Policy, RateDecision } from '../src/ratelimit/index.js';
import { createRedisLimiter } from '../src/ratelimit/redis/index.js';
import type { RedisClient } from '../src/redis/index.js';

/**
 * Limits large enough for leases (a 64th of 640 is 10 units), small windows so that random walks
 * cross many bucket and window edges, and bans, so that refusals and strikes happen too.
 */
const POLICY: Policy = {
  name: 'leased',
  windows: [
    { name: 'minute', limit: 640, windowMs: 10_000, buckets: 10 },
    { name: 'day', limit: 3_000, windowMs: 100_000, buckets: 10 },
  ],
  ban: { strikes: 6, strikeWindowMs: 3_000, banMs: 4_000 },
};
const LEASES = { maxUnits: 64 };

/** What a lease must not change: the answer, and what the headers say. */
const view = (d: RateDecision) => ({ allowed: d.allowed, banned: d.banned, retryAt: d.retryAt, windows: d.windows });

/** Script calls Redis has run so far. */
async function scriptCalls(admin: Redis): Promise<number> {
  const stats = await admin.info('commandstats');
  return [...stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** For each admitted request (time and units), the units admitted in the window ending at it. */
function assertNeverOverLimit(admitted: readonly { at: number; units: number }[], policy: Policy, label: string): void {
  const sorted = [...admitted].sort((a, b) => a.at - b.at);
  for (const window of policy.windows) {
    let start = 0;
    let inWindow = 0;
    for (const entry of sorted) {
      inWindow += entry.units;
      while ((sorted[start] as { at: number }).at <= entry.at - window.windowMs) inWindow -= (sorted[start++] as { units: number }).units;
      assert.ok(inWindow <= window.limit, `${label}: ${inWindow} units within ${window.windowMs} ms ending at ${entry.at} (limit ${window.limit})`);
    }
  }
}

describe('bounded leases on one Redis', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  let admin: Redis;
  const clients: RedisClient[] = [];

  before(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
    for (let i = 0; i < 3; i++) clients.push(await connectedRedisClient(redis.url, 2000));
  });
  after(async () => {
    for (const client of clients) await client.close();
    admin?.disconnect();
    await redis?.close();
  });

  test('property: one instance with leases decides exactly as in process, in far fewer script calls', async () => {
    let requests = 0;
    let calls = 0;
    let refused = 0;
    let banned = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const next = seededRandom(seed);
      let now = 1_800_000_000_000 + Math.floor(next() * 100_000);
      const inProcess = createMemoryLimiter({ now: () => now });
      const leased = createRedisLimiter(clients[0] as RedisClient, { prefix: `l${seed}`, now: () => now, leases: LEASES });
      const before = await scriptCalls(admin);
      for (let step = 0; step < 1_500; step++) {
        const r = next();
        // Mostly busy stretches (leases form), with pauses that end them, sometimes across a window.
        now += r < 0.97 ? Math.floor(next() * 8) : r < 0.995 ? Math.floor(next() * 600) : Math.floor(next() * 15_000);
        // Two keys of each account (a key belongs to one account: its bans are the account's).
        const subject = next() < 0.8 ? 'busy' : 'other';
        const request: LimitRequest = {
          subject,
          keyId: `${subject}-${next() < 0.5 ? 'k1' : 'k2'}`,
          policy: POLICY,
          cost: next() < 0.8 ? 1 : 1 + Math.floor(next() * 5),
        };
        const expected = await inProcess.check(request);
        const actual = await leased.check(request);
        assert.deepEqual(view(actual), view(expected), `seed ${seed}, request ${step} at ${now}`);
        if (!expected.allowed) refused++;
        if (expected.banned) banned++;
        requests++;
      }
      calls += (await scriptCalls(admin)) - before;
    }
    assert.ok(refused > 100 && banned > 0, `the timelines met the limits (${refused} refused) and bans (${banned})`);
    // One at a time, without leases, each request is a call of its own.
    assert.ok(calls < requests / 3, `${requests} requests took ${calls} script calls`);
  });

  test('property: three instances with leases, random concurrent bursts, costs and accounts: never over the limit', async () => {
    for (let seed = 1; seed <= 8; seed++) {
      const next = seededRandom(100 + seed);
      let now = 1_800_000_000_000 + Math.floor(next() * 100_000);
      const instances: Limiter[] = clients.map((client) => createRedisLimiter(client, { prefix: `m${seed}`, now: () => now, leases: LEASES }));
      const admitted = new Map<string, { at: number; units: number }[]>();
      const before = await scriptCalls(admin);
      let bursts = 0;
      for (let step = 0; step < 400; step++) {
        const r = next();
        now += r < 0.7 ? Math.floor(next() * 20) : r < 0.95 ? Math.floor(next() * 1_000) : Math.floor(next() * 12_000);
        // Every instance sends a burst at once, mostly for the same hot account.
        const sent = instances.map((instance) =>
          Array.from({ length: 1 + Math.floor(next() * 20) }, () => {
            const subject = next() < 0.85 ? 'hot' : 'warm';
            const request: LimitRequest = {
              subject,
              keyId: `${subject}-k${Math.floor(next() * 3)}`,
              policy: POLICY,
              cost: next() < 0.9 ? 1 : 2 + Math.floor(next() * 4),
            };
            return instance.check(request).then((decided) => ({ request, decided }));
          }),
        );
        bursts += sent.length;
        for (const { request, decided } of await Promise.all(sent.flat())) {
          if (decided.allowed) {
            const list = admitted.get(request.subject) ?? [];
            list.push({ at: decided.now, units: request.cost ?? 1 });
            admitted.set(request.subject, list);
          }
        }
      }
      for (const [subject, list] of admitted) assertNeverOverLimit(list, POLICY, `seed ${seed}, ${subject}`);
      // Without leases every burst takes a call at least: fewer calls, some were answered by leases alone.
      const calls = (await scriptCalls(admin)) - before;
      assert.ok(calls < bursts, `seed ${seed}: ${bursts} bursts took ${calls} script calls`);
    }
  });

  test("an instance's unused lease is all another instance misses, and only until it is given back", async () => {
    let now = 1_800_000_000_100;
    const policy: Policy = { name: 'small', windows: [{ name: 'minute', limit: 640, windowMs: 10_000, buckets: 10 }], ban: undefined };
    const a = createRedisLimiter(clients[0] as RedisClient, { prefix: 'under', now: () => now, leases: LEASES });
    const b = createRedisLimiter(clients[1] as RedisClient, { prefix: 'under', now: () => now, leases: LEASES });
    const request: LimitRequest = { subject: 'shared', keyId: 'k', policy };
    // A is busy: from its second request on it asks for leases (1, 2, then 4 units), and takes from them.
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) seen.push((await a.check(request)).windows[0]?.remaining ?? -1);
    assert.deepEqual(seen, [639, 638, 637, 636, 635, 634, 633, 632], 'a lease answers as Redis would alone');
    // B takes everything it can: all but the units A was granted and has not used.
    let admittedByB = 0;
    for (let i = 0; i < 700; i++) if ((await b.check(request)).allowed) admittedByB++;
    assert.equal((await b.check(request)).allowed, false);
    const held = 632 - admittedByB;
    assert.ok(held > 0 && held <= 640 / 64, `A held ${held} units: some, at most a 64th of the limit`);
    // The bucket ends: A's next request gives its units back before it is decided, and takes one.
    now += 1_000;
    const back = await a.check(request);
    assert.equal(back.allowed, true, "A's request fits in the units it gave back");
    assert.equal(back.windows[0]?.remaining, held - 1);
  });
});
