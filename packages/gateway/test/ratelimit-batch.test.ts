import assert from 'node:assert/strict';
import {
  connectedRedisClient,
  keysCli,
  type LimitedStack,
  PROXY_TEST_PATHS,
  type RunningGateway,
  seededRandom,
  startGateway,
  startLimitedStack,
  startRecordingUpstream,
  type TestKeyring,
  writeDocument,
  writePlansFile,
} from './support/index.js';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, startRedis, temporaryDir, type RedisServer, waitForReady } from '@animal-store/testkit';
import type { Limiter, LimitRequest, Policy, RateDecision } from '../src/ratelimit/index.js';
import { createRedisLimiter } from '../src/ratelimit/redis/index.js';
import type { RedisClient } from '../src/redis/index.js';

/** Small windows and a quick ban, so random walks meet every path of the script. */
const POLICY: Policy = {
  name: 'test',
  windows: [
    { name: 'minute', limit: 7, windowMs: 10_000, buckets: 10 },
    { name: 'day', limit: 30, windowMs: 100_000, buckets: 10 },
  ],
  ban: { strikes: 4, strikeWindowMs: 5_000, banMs: 20_000 },
};

/** What must be identical, batched or not. */
const view = (d: RateDecision) => ({ allowed: d.allowed, banned: d.banned, revoked: d.revoked === true, retryAt: d.retryAt, now: d.now, windows: d.windows });

/** Script calls Redis has run so far. */
async function scriptCalls(admin: Redis): Promise<number> {
  const stats = await admin.info('commandstats');
  return [...stats.matchAll(/^cmdstat_(?:evalsha|eval|fcall):calls=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

describe('batched decisions on one Redis', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  let admin: Redis;
  const clients: RedisClient[] = [];

  before(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
    // Three simulated gateway instances, each with its own connection, plus the one-at-a-time reference.
    for (let i = 0; i < 4; i++) {
      const client = await connectedRedisClient(redis.url, 2000);
      clients.push(client);
    }
  });
  after(async () => {
    for (const client of clients) await client.close();
    admin?.disconnect();
    await redis?.close();
  });

  test('property: random interleavings of batches from three instances decide exactly as one request at a time', async () => {
    let batchedCalls = 0;
    let requests = 0;
    for (let seed = 1; seed <= 16; seed++) {
      const next = seededRandom(seed);
      let now = 1_800_000_000_000 + Math.floor(next() * 100_000);
      const instances: Limiter[] = clients.slice(0, 3).map((client) => createRedisLimiter(client, { prefix: `b${seed}`, now: () => now }));
      const reference = createRedisLimiter(clients[3] as RedisClient, { prefix: `s${seed}`, now: () => now });
      const accounts = ['a', 'b', 'c'];
      const keys = ['k1', 'k2', 'k3', 'k4'];
      const before = await scriptCalls(admin);
      const batched: RateDecision[] = [];
      const sequential: RateDecision[] = [];
      for (let step = 0; step < 120; step++) {
        const r = next();
        now += r < 0.5 ? Math.floor(next() * 40) : r < 0.9 ? Math.floor(next() * 1_500) : Math.floor(next() * 25_000);
        // One instance sends a batch of 1–12 requests, several of them often for the same account.
        const instance = instances[Math.floor(next() * instances.length)] as Limiter;
        const size = 1 + Math.floor(next() * 12);
        const batch: LimitRequest[] = Array.from({ length: size }, () => ({
          subject: accounts[Math.floor(next() * accounts.length)] as string,
          keyId: next() < 0.2 ? undefined : (keys[Math.floor(next() * keys.length)] as string),
          policy: POLICY,
        }));
        batched.push(...(await Promise.all(batch.map((request) => instance.check(request)))));
        for (const request of batch) sequential.push(await reference.check(request));
        requests += size;
      }
      batchedCalls += (await scriptCalls(admin)) - before - sequential.length;
      for (let i = 0; i < batched.length; i++)
        assert.deepEqual(view(batched[i] as RateDecision), view(sequential[i] as RateDecision), `seed ${seed}, request ${i}`);
      assert.ok(
        batched.some((d) => d.banned) && batched.some((d) => d.allowed) && batched.some((d) => !d.allowed && !d.banned),
        `seed ${seed} met every outcome`,
      );
    }
    assert.ok(batchedCalls < requests / 3, `${requests} batched requests took ${batchedCalls} script calls`);
  });

  test('one batch holding the same account 25 times: decided in order, each seeing the charges before it, in one call', async () => {
    const now = 1_800_000_000_000;
    const limiter = createRedisLimiter(clients[0] as RedisClient, { prefix: 'same', now: () => now });
    const before = await scriptCalls(admin);
    const decisions = await Promise.all(Array.from({ length: 25 }, () => limiter.check({ subject: 'hot', keyId: 'k', policy: POLICY })));
    assert.equal((await scriptCalls(admin)) - before, 1);
    assert.deepEqual(
      decisions.map((d) => (d.banned ? 'banned' : d.allowed ? 'allowed' : 'refused')),
      [
        ...Array<string>(7).fill('allowed'),
        ...Array<string>(3).fill('refused'), // strikes 1–3
        ...Array<string>(15).fill('banned'), // the 4th strike bans; the rest meet the ban
      ],
    );
    assert.deepEqual(
      decisions.slice(0, 8).map((d) => d.windows[0]?.remaining),
      [6, 5, 4, 3, 2, 1, 0, 0],
    );
  });

  test('a full call (128 requests, a reply of over 512 values, packed in parts): each decided as alone, in order', async () => {
    const now = 1_800_000_000_000;
    const windows = [
      { name: 'minute', limit: 20, windowMs: 60_000, buckets: 60 },
      { name: 'day', limit: 1000, windowMs: 86_400_000, buckets: 24 },
    ] as const;
    const policy: Policy = { name: 'full', windows: [...windows], ban: undefined };
    const limiter = createRedisLimiter(clients[0] as RedisClient, { prefix: 'full', now: () => now, maxBatch: 128 });
    const before = await scriptCalls(admin);
    // 64 accounts, then 32 of them again, and one account 32 times: its last 12 refused.
    const subjects = [...Array.from({ length: 96 }, (_, i) => `a${i % 64}`), ...Array<string>(32).fill('hot')];
    const decisions = await Promise.all(subjects.map((subject) => limiter.check({ subject, keyId: subject, policy })));
    assert.equal((await scriptCalls(admin)) - before, 1, 'one call');
    assert.deepEqual(
      decisions.map((d) => [d.allowed, d.windows[0]?.remaining, d.windows[1]?.remaining]),
      subjects.map((subject, i) => {
        const seen = subjects.slice(0, i + 1).filter((s) => s === subject).length;
        return seen <= 20 ? [true, 20 - seen, 1000 - seen] : [false, 0, 1000 - 20];
      }),
    );
  });

  test('a batch asks for revocations in the same call: a revoked key is refused and charges nothing', async () => {
    const limiter = createRedisLimiter(clients[0] as RedisClient, { prefix: 'rev' });
    await admin.sadd('rev:revoked', 'stolen');
    const before = await scriptCalls(admin);
    const [good, stolen, again] = await Promise.all([
      limiter.check({ subject: 'acme', keyId: 'fine', policy: POLICY, checkRevoked: true }),
      limiter.check({ subject: 'acme', keyId: 'stolen', policy: POLICY, checkRevoked: true }),
      limiter.check({ subject: 'acme', keyId: 'fine', policy: POLICY, checkRevoked: true }),
    ]);
    assert.equal((await scriptCalls(admin)) - before, 1);
    assert.deepEqual([good?.allowed, stolen?.revoked, stolen?.allowed, again?.allowed], [true, true, false, true]);
    assert.equal(again?.windows[0]?.remaining, 5, 'the revoked request was not charged');
  });

  test('key ids go to Redis as their UTF-8 bytes: a revoked id in any script is found, ids a byte apart are not', async () => {
    const limiter = createRedisLimiter(clients[0] as RedisClient, { prefix: 'utf8' });
    await admin.sadd('utf8:revoked', 'clé-✓-🔑', '');
    const ids = ['clé-✓-🔑', 'cle-✓-🔑', 'clé-✓-🔒', 'clé', 'x'.repeat(300)];
    const decided = await Promise.all(ids.map((keyId, i) => limiter.check({ subject: `u${i}`, keyId, policy: POLICY, checkRevoked: true })));
    assert.deepEqual(
      decided.map((d) => d?.revoked === true),
      [true, false, false, false, false],
    );
  });
});

describe('a batch in flight when Redis dies, under each failure policy', { skip: redisSkipReason() }, () => {
  let stack: LimitedStack;
  let redis: RedisServer;
  let keyring: TestKeyring;
  let plans: string;

  before(async () => {
    stack = await startLimitedStack();
    keyring = stack.keyring;
    redis = stack.redis as RedisServer;
    plans = writePlansFile({ anonymous: { minute: 600, day: 6000 } });
  });
  after(async () => {
    await stack?.close();
  });

  const EXPECTED = { open: { status: 200, limit: '60' }, closed: { status: 503, limit: null }, local: { status: 200, limit: '30' } } as const;

  for (const policy of ['open', 'closed', 'local'] as const) {
    test(`policy ${policy}: every request of the batch gets the policy's answer within the budget`, async () => {
      await redis.restart().catch(() => {}); // the previous case killed it
      const gateway = await startGateway({
        ...stack.env,
        PLANS_FILE: plans,
        REDIS_COMMAND_TIMEOUT_MS: '300',
        RATE_LIMIT_ON_REDIS_FAILURE: policy,
        RATE_LIMIT_LOCAL_SHARE: '0.5',
      });
      const admin = new Redis(redis.url);
      // The test kills Redis under it: its reconnection errors are expected, not news.
      admin.on('error', () => {});
      try {
        await waitForReady(gateway.url);
        const { token } = await keyring.issue({ plan: 'free', sub: `dies-${policy}` });
        assert.equal((await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
        // Redis holds every command from now on: the next batch is sent and waits for its answer…
        await admin.client('PAUSE', 5000, 'ALL');
        const started = performance.now();
        const answers = Array.from({ length: 8 }, () => fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } }));
        await new Promise((resolve) => setTimeout(resolve, 100));
        await redis.stop('SIGKILL'); // …and Redis dies with the batch in flight.
        for (const res of await Promise.all(answers)) {
          assert.equal(res.status, EXPECTED[policy].status);
          assert.equal(res.headers.get('x-ratelimit-limit'), EXPECTED[policy].limit);
        }
        assert.ok(performance.now() - started < 1500, `the batch waited ${Math.round(performance.now() - started)} ms`);
      } finally {
        admin.disconnect();
        await gateway.close();
      }
    });
  }
});

describe('revocation on the very next request, two instances under load', { skip: redisSkipReason() }, () => {
  test('while both instances serve other keys at full speed, keys revoke → the next request is a 401 on both', async () => {
    const redis = await startRedis();
    const upstream = await startRecordingUpstream();
    const env = { KEYS_DIR: join(temporaryDir('gw-cli-'), 'keys'), REDIS_URL: redis.url };
    assert.equal((await keysCli(env, 'init')).status, 0);
    const gatewayEnv = {
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      JWKS_FILE: join(env.KEYS_DIR, 'public', 'jwks.json'),
      REDIS_URL: redis.url,
      REDIS_COMMAND_TIMEOUT_MS: '1000',
      RATE_LIMITS: 'on',
    };
    const gateways = [await startGateway(gatewayEnv), await startGateway(gatewayEnv)];
    let loading = true;
    try {
      const issue = async (sub: string) => (await keysCli(env, 'issue', '--plan', 'business', '--sub', sub)).stdout;
      const victim = await issue('victim');
      const others = await Promise.all(['a', 'b', 'c', 'd'].map(issue));
      const jti = (JSON.parse((await keysCli(env, 'list', '--json')).stdout) as { jti: string; sub: string }[]).find((k) => k.sub === 'victim')?.jti as string;
      const call = (gateway: RunningGateway, token: string) =>
        fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } }).then((res) => res.status);
      for (const gateway of gateways) assert.equal(await call(gateway, victim), 200);
      // 16 connections keep both instances batching other accounts' decisions meanwhile.
      const load = Array.from({ length: 16 }, async (_, i) => {
        let served = 0;
        while (loading) if ((await call(gateways[i % 2] as RunningGateway, others[i % others.length] as string)) === 200) served++;
        return served;
      });
      const revoked = await keysCli(env, 'revoke', jti);
      assert.equal(revoked.status, 0, revoked.stderr);
      assert.deepEqual(await Promise.all(gateways.map((gateway) => call(gateway, victim))), [401, 401]);
      loading = false;
      const served = (await Promise.all(load)).reduce((sum, n) => sum + n, 0);
      assert.ok(served > 50, `the load served ${served} requests`);
    } finally {
      loading = false;
      for (const gateway of gateways) await gateway.close();
      await upstream.close();
      await redis.close();
    }
  });
});
