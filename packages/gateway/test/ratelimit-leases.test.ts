import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, startRedis, temporaryDir, type RedisServer } from '@animal-store/testkit';
import {
  connectedRedisClient,
  keysCli,
  PROXY_TEST_PATHS,
  type RunningGateway,
  seededRandom,
  startGateway,
  startRecordingUpstream,
  writeDocument,
  writePlansFile,
} from './support/index.js';
import { createMemoryLimiter } from '../src/ratelimit/memory/index.js';
import type { Limiter, LimitRequest, Policy, RateDecision } from '../src/ratelimit/index.js';
import { createRedisLimiter } from '../src/ratelimit/redis/index.js';
import type { RedisClient } from '../src/redis/index.js';

/**
 * Limits large enough for leases (a 1024th of 8,192 is 8 units), small windows so that random
 * walks cross many bucket and window edges, and bans, so that refusals and strikes happen too.
 */
const POLICY: Policy = {
  name: 'leased',
  windows: [
    { name: 'minute', limit: 8_192, windowMs: 10_000, buckets: 10 },
    { name: 'day', limit: 30_000, windowMs: 100_000, buckets: 10 },
  ],
  ban: { strikes: 6, strikeWindowMs: 3_000, banMs: 4_000 },
};
/** Mostly 1 unit, sometimes many: leases are spent unevenly, and limits are met in fewer requests. */
const costOf = (next: () => number) => (next() < 0.7 ? 1 : 1 + Math.floor(next() * 30));
const LEASES = { maxUnits: 64 };

/** What a lease must not change: the answer, and what the headers say. */
const view = (d: RateDecision) => ({ allowed: d.allowed, banned: d.banned, retryAt: d.retryAt, windows: d.windows });

/** Script calls Redis has run so far. */
async function scriptCalls(admin: Redis): Promise<number> {
  const stats = await admin.info('commandstats');
  return [...stats.matchAll(/^cmdstat_(?:evalsha|eval|fcall):calls=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
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

  test('property: one instance with leases decides exactly as in process, in fewer script calls', async () => {
    let requests = 0;
    let calls = 0;
    let refused = 0;
    let banned = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const next = seededRandom(seed);
      let now = 1_800_000_000_000 + Math.floor(next() * 100_000);
      const inProcess = createMemoryLimiter({ now: () => now });
      const leased = createRedisLimiter(clients[0] as RedisClient, { prefix: `l${seed}`, now: () => now, leases: LEASES });
      const before = await scriptCalls(admin);
      for (let step = 0; step < 3_000; step++) {
        const r = next();
        // Mostly busy stretches (leases form), with pauses that end them, sometimes across a window.
        now += r < 0.99 ? Math.floor(next() * 4) : r < 0.998 ? Math.floor(next() * 600) : Math.floor(next() * 15_000);
        // Two keys of each account (a key belongs to one account: its bans are the account's).
        const subject = next() < 0.8 ? 'busy' : 'other';
        const request: LimitRequest = {
          subject,
          keyId: `${subject}-${next() < 0.5 ? 'k1' : 'k2'}`,
          policy: POLICY,
          cost: costOf(next),
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
    // One at a time, without leases, each request is a call of its own. (Leases of this plan hold
    // at most 8 units, and many requests cost more: a fraction of the calls is what they save here.)
    assert.ok(calls < requests / 2, `${requests} requests took ${calls} script calls`);
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
              cost: costOf(next),
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

  test("an instance's unused lease refuses nothing another instance asks: asked for, it is given back", async () => {
    const now = 1_800_000_000_100;
    const limit = 10_240;
    const policy: Policy = { name: 'large', windows: [{ name: 'minute', limit, windowMs: 10_000, buckets: 10 }], ban: undefined };
    const a = createRedisLimiter(clients[0] as RedisClient, { prefix: 'under', now: () => now, leases: LEASES });
    const b = createRedisLimiter(clients[1] as RedisClient, { prefix: 'under', now: () => now, leases: LEASES });
    const request: LimitRequest = { subject: 'shared', keyId: 'k', policy };
    // A is busy: from its second request on it asks for leases (1, 2, then 4 units), and takes from them.
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) seen.push((await a.check(request)).windows[0]?.remaining ?? -1);
    assert.deepEqual(
      seen,
      Array.from({ length: 8 }, (_, i) => limit - 1 - i),
      'a lease answers as Redis would alone',
    );
    // B takes everything, the units A holds unused too: refused for them, B asks, and A gives them back.
    let admittedByB = 0;
    for (let i = 0; i < limit; i++) if ((await b.check(request)).allowed) admittedByB++;
    assert.equal(admittedByB, limit - 8);
    const refused = await b.check(request);
    assert.deepEqual([refused.kind, refused.windows[0]?.remaining], ['limited', 0]);
    // A's lease went back: its next request is decided in Redis, and refused too (the clock has not moved).
    assert.equal((await a.check(request)).allowed, false);
  });

  test('a busy account of a large plan: a call for up to 64 requests, a few more as leases grow and buckets end', async () => {
    let now = 1_800_000_000_000;
    const policy: Policy = {
      name: 'enterprise',
      windows: [
        { name: 'minute', limit: 1_000_000, windowMs: 60_000, buckets: 60 },
        { name: 'day', limit: 100_000_000, windowMs: 86_400_000, buckets: 60 },
      ],
      ban: undefined,
    };
    const limiter = createRedisLimiter(clients[0] as RedisClient, { prefix: 'busy', now: () => now, leases: LEASES });
    const before = await scriptCalls(admin);
    for (let i = 0; i < 3_000; i++) {
      now += 1;
      const decided = await limiter.check({ subject: 'big', keyId: 'k', policy });
      assert.equal(decided.windows[0]?.remaining, 1_000_000 - 1 - i);
    }
    const calls = (await scriptCalls(admin)) - before;
    // 3,000 requests over 3 s: leases of 1, 2, 4 … 64 units, then one call per 64, and one more per second.
    assert.ok(calls <= 3_000 / 64 + 3 * 8, `3,000 requests took ${calls} script calls`);
  });

  test('no lease on a limit under 1,024: bursts on such plans stay exact across instances', async () => {
    const now = 1_800_000_000_100;
    const policy: Policy = { name: 'business', windows: [{ name: 'minute', limit: 1_000, windowMs: 60_000, buckets: 60 }], ban: undefined };
    const instances = clients.map((client) => createRedisLimiter(client, { prefix: 'small', now: () => now, leases: LEASES }));
    const before = await scriptCalls(admin);
    let admitted = 0;
    for (let round = 0; round < 60; round++) {
      const decided = await Promise.all(
        instances.flatMap((instance) => Array.from({ length: 10 }, () => instance.check({ subject: 'b', keyId: 'k', policy }))),
      );
      admitted += decided.filter((d) => d.allowed).length;
    }
    assert.equal(admitted, 1_000);
    assert.equal((await scriptCalls(admin)) - before, 60 * instances.length, 'every burst of every instance went to Redis');
  });
});

describe('a revocation refuses a key answered from leases, from the next request, on every instance', { skip: redisSkipReason() }, () => {
  test('a busy key on two instances, its requests answered from leases; keys revoke → the next request is a 401 on both', async () => {
    const redis = await startRedis();
    const admin = new Redis(redis.url);
    const upstream = await startRecordingUpstream();
    const env = { KEYS_DIR: join(temporaryDir('gw-leases-'), 'keys'), REDIS_URL: redis.url };
    assert.equal((await keysCli(env, 'init')).status, 0);
    const gatewayEnv = {
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      JWKS_FILE: join(env.KEYS_DIR, 'public', 'jwks.json'),
      REDIS_URL: redis.url,
      RATE_LIMITS: 'on',
      PLANS_FILE: writePlansFile({ plans: { business: { minute: 1_000_000, day: 100_000_000 } } }),
    };
    const gateways = [await startGateway(gatewayEnv), await startGateway(gatewayEnv)];
    try {
      const victim = (await keysCli(env, 'issue', '--plan', 'business', '--sub', 'victim')).stdout;
      const jti = (JSON.parse((await keysCli(env, 'list', '--json')).stdout) as { jti: string; sub: string }[]).find((k) => k.sub === 'victim')?.jti as string;
      const call = (gateway: RunningGateway) => fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${victim}` } }).then((res) => res.status);
      // Busy on both: leases form once each instance's copy of the deny-list is sure of the key.
      let leased = false;
      for (let round = 0; round < 50 && !leased; round++) {
        const before = await scriptCalls(admin);
        for (let i = 0; i < 40; i++) for (const gateway of gateways) assert.equal(await call(gateway), 200);
        leased = (await scriptCalls(admin)) - before < 10;
      }
      assert.ok(leased, 'the key is answered from leases on both instances: 80 requests in under 10 script calls');
      const revoked = await keysCli(env, 'revoke', jti);
      assert.equal(revoked.status, 0, revoked.stderr);
      assert.match(revoked.stderr, /refused from the next request by every gateway \(2 gateway processes confirmed\)/);
      assert.deepEqual(await Promise.all(gateways.map(call)), [401, 401]);
    } finally {
      for (const gateway of gateways) await gateway.close();
      admin.disconnect();
      await upstream.close();
      await redis.close();
    }
  });
});

describe('a gateway under 25 connections on one busy key', { skip: redisSkipReason() }, () => {
  test('the requests that waited for the call asking a lease are answered from it: about one call per lease', async () => {
    const redis = await startRedis();
    const admin = new Redis(redis.url);
    const upstream = await startRecordingUpstream();
    const env = { KEYS_DIR: join(temporaryDir('gw-leases-'), 'keys'), REDIS_URL: redis.url };
    assert.equal((await keysCli(env, 'init')).status, 0);
    const gateway = await startGateway({
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      JWKS_FILE: join(env.KEYS_DIR, 'public', 'jwks.json'),
      REDIS_URL: redis.url,
      RATE_LIMITS: 'on',
      PLANS_FILE: writePlansFile({ plans: { business: { minute: 1_000_000, day: 100_000_000 } } }),
    });
    try {
      const token = (await keysCli(env, 'issue', '--plan', 'business', '--sub', 'busy')).stdout;
      const load = (connections: number, each: number) =>
        Promise.all(
          Array.from({ length: connections }, async () => {
            for (let i = 0; i < each; i++) {
              const res = await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } });
              await res.arrayBuffer();
              assert.equal(res.status, 200);
            }
          }),
        );
      await load(25, 20); // warm: the deny-list's copy sure, leases grown
      const before = await scriptCalls(admin);
      await load(25, 100);
      const calls = (await scriptCalls(admin)) - before;
      // Sent to Redis anyway, they would give each lease back as it arrives: a call per dozen requests.
      assert.ok(calls < 2_500 / 32, `2,500 requests took ${calls} script calls`);
    } finally {
      await gateway.close();
      admin.disconnect();
      await upstream.close();
      await redis.close();
    }
  });
});
