import assert from 'node:assert/strict';
import { connectedRedisClient, seededRandom } from './support/index.js';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { OLD_HASH_RATE_LIMIT_SCRIPT } from './fixtures/old-hash-script.js';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { createMemoryLimiter } from '../src/ratelimit/memory/index.js';
import { decision, type LimitRequest, type Policy, type RateDecision } from '../src/ratelimit/index.js';
import { createRedisLimiter } from '../src/ratelimit/redis/index.js';
import { redisKeyNames, type RedisClient } from '../src/redis/index.js';

/** Small windows and a quick ban, so random walks meet every path of both scripts. */
const POLICY: Policy = {
  name: 'test',
  windows: [
    { name: 'minute', limit: 7, windowMs: 10_000, buckets: 10 },
    { name: 'day', limit: 30, windowMs: 100_000, buckets: 10 },
  ],
  ban: { strikes: 3, strikeWindowMs: 5_000, banMs: 60_000 },
};
/** The same minute window alone: a call may meet the account's day window only in a later request. */
const MINUTE_ONLY: Policy = { ...POLICY, name: 'minute-only', windows: [POLICY.windows[0] as Policy['windows'][number]] };

/** What must be identical, whichever release decided. */
const view = (d: RateDecision) => ({ allowed: d.allowed, banned: d.banned, retryAt: d.retryAt, now: d.now, windows: d.windows });

/** One request decided by the release before (its script, its ARGV: the policy in each request), alone in its call. */
async function oldCheck(admin: Redis, prefix: string, request: LimitRequest, now: number): Promise<RateDecision> {
  const { policy } = request;
  const ban = policy.ban;
  const args: (string | number)[] = [
    now,
    1,
    '0',
    1,
    request.keyId ?? '',
    '0',
    ban?.strikes ?? 0,
    ban?.strikeWindowMs ?? 0,
    ban?.banMs ?? 0,
    0,
    policy.windows.length,
  ];
  for (const w of policy.windows) args.push(w.name, w.limit, w.windowMs, w.buckets);
  const reply = (await admin.eval(OLD_HASH_RATE_LIMIT_SCRIPT, 1, redisKeyNames(prefix).limits(request.subject), ...args)) as number[];
  const outcome = reply[1] as number;
  const retry = reply[2] as number;
  return decision(outcome === 1 ? 'allowed' : outcome === 2 ? 'banned' : 'limited', 'redis', {
    policy,
    windows: policy.windows.map((w, i) => ({
      name: w.name,
      limit: w.limit,
      windowMs: w.windowMs,
      remaining: Math.max(0, w.limit - (reply[3 + i * 2] as number)),
      resetAt: reply[4 + i * 2] as number,
    })),
    retryAt: retry === -1 || retry === 0 ? undefined : retry,
    now: reply[0] as number,
  });
}

describe('upgrading from the release that kept an account in a hash', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  let admin: Redis;
  let client: RedisClient;
  let reference: RedisClient;

  before(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
    client = await connectedRedisClient(redis.url, 2000);
    reference = await connectedRedisClient(redis.url, 2000);
  });
  after(async () => {
    await client?.close();
    await reference?.close();
    admin?.disconnect();
    await redis?.close();
  });

  test('property: random timelines, the first part on the older release, the rest on this one, decide as this one alone and as the in-process limiter', async () => {
    const met = { bans: 0, strikes: 0, counts: 0, spread: 0 };
    for (let seed = 1; seed <= 24; seed++) {
      const next = seededRandom(seed);
      let now = 1_800_000_000_000 + Math.floor(next() * 100_000);
      const upgraded = createRedisLimiter(client, { prefix: `u${seed}`, now: () => now });
      const alone = createRedisLimiter(reference, { prefix: `n${seed}`, now: () => now });
      const inProcess = createMemoryLimiter({ now: () => now });
      const accounts = ['a', 'b'];
      const keys = ['k1', 'k2', 'k3'];
      const steps = 160;
      const upgradeAt = 30 + Math.floor(next() * 100);
      for (let step = 0; step < steps; step++) {
        const r = next();
        now += r < 0.5 ? Math.floor(next() * 40) : r < 0.9 ? Math.floor(next() * 1_500) : Math.floor(next() * 25_000);
        if (step === upgradeAt) {
          // What the older release left in Redis: its hashes must hold what the conversion has to carry over.
          for (const account of accounts) {
            const hash = await admin.hgetall(redisKeyNames(`u${seed}`).limits(account));
            const fields = Object.entries(hash);
            if (fields.some(([f, v]) => f.startsWith('b:') && Number(v) > now)) met.bans++;
            if (fields.some(([f]) => f.startsWith('s:') && Number(hash[`x:${f.slice(2)}`]) > now)) met.strikes++;
            if (Number(hash.mt) > 0 || Number(hash.dt) > 0) met.counts++;
            if (Number(hash.ml) > Number(hash.mf) || Number(hash.dl) > Number(hash.df)) met.spread++;
          }
        }
        // Before the upgrade, one request at a time on the older script; after, batches of 1–8 on this one.
        const size = step < upgradeAt ? 1 : step === upgradeAt ? Math.floor(next() * 6) : 1 + Math.floor(next() * 8);
        const batch: LimitRequest[] = Array.from({ length: size }, () => {
          const subject = accounts[Math.floor(next() * accounts.length)] as string;
          // A key belongs to one account (the in-process limiter keeps bans by key id alone).
          const keyId = next() < 0.2 ? undefined : `${subject}-${keys[Math.floor(next() * keys.length)] as string}`;
          return { subject, keyId, policy: next() < 0.25 ? MINUTE_ONLY : POLICY };
        });
        // The upgrade's first call meets every account with both windows (a window no policy of the call
        // has is dropped, see account-state-lua.ts), often after a request that has the minute alone.
        if (step === upgradeAt) for (const subject of accounts) batch.push({ subject, keyId: `${subject}-k1`, policy: POLICY });
        const decided =
          step < upgradeAt
            ? [await oldCheck(admin, `u${seed}`, batch[0] as LimitRequest, now)]
            : await Promise.all(batch.map((request) => upgraded.check(request)));
        for (let i = 0; i < batch.length; i++) {
          const request = batch[i] as LimitRequest;
          const where = `seed ${seed}, step ${step} (upgrade at ${upgradeAt}), request ${i}: ${request.subject} ${request.keyId ?? '-'} ${request.policy.name}`;
          const expected = view(await alone.check(request));
          assert.deepEqual(view(decided[i] as RateDecision), expected, where);
          assert.deepEqual(view(await inProcess.check(request)), expected, `${where} (in process)`);
        }
        if (step === upgradeAt) {
          for (const account of accounts) {
            assert.equal(await admin.type(redisKeyNames(`u${seed}`).limits(account)), 'string', `seed ${seed}: ${account} after the upgrade's first call`);
          }
        }
      }
    }
    // The random walks upgraded accounts in every state the hash can hold.
    assert.ok(met.bans >= 3 && met.strikes >= 3 && met.counts >= 10 && met.spread >= 10, JSON.stringify(met));
  });

  test('a key banned for an hour by the older release is still banned after the upgrade, until the same time', async () => {
    let now = 1_800_000_000_500;
    const banning: Policy = { ...POLICY, ban: { strikes: 3, strikeWindowMs: 60_000, banMs: 3_600_000 } };
    const request: LimitRequest = { subject: 'banned', keyId: 'k', policy: banning };
    let last: RateDecision | undefined;
    for (let i = 0; i < 7 + 3; i++) last = await oldCheck(admin, 'ban', request, now);
    assert.equal(last?.banned, true);
    const bannedUntil = now + 3_600_000;
    assert.equal(last?.retryAt, bannedUntil);
    now += 60_000; // the windows are long empty; the ban is not
    const limiter = createRedisLimiter(client, { prefix: 'ban', now: () => now });
    const first = await limiter.check(request);
    assert.deepEqual([first.allowed, first.banned, first.retryAt], [false, true, bannedUntil]);
    // The request changed nothing, yet the account is converted and written back, living as long as its ban.
    const key = redisKeyNames('ban').limits('banned');
    assert.equal(await admin.type(key), 'string');
    assert.ok((await admin.pttl(key)) >= 3_600_000 - 60_000 - 1000, 'the converted key outlives the ban');
    now = bannedUntil - 1;
    assert.equal((await limiter.check(request)).banned, true);
    now = bannedUntil;
    assert.equal((await limiter.check(request)).allowed, true, 'and admitted when it ends');
  });

  test('strikes and counts carry over: a full window stays full, and the strikes before the upgrade count towards the ban', async () => {
    const now = 1_800_000_000_500;
    const request: LimitRequest = { subject: 'striking', keyId: 'k', policy: POLICY };
    for (let i = 0; i < 7; i++) assert.equal((await oldCheck(admin, 'strikes', request, now + i * 100)).allowed, true);
    for (let i = 0; i < 2; i++) assert.equal((await oldCheck(admin, 'strikes', request, now + 800)).banned, false); // strikes 1–2
    const limiter = createRedisLimiter(client, { prefix: 'strikes', now: () => now + 900 });
    const third = await limiter.check(request);
    assert.deepEqual([third.allowed, third.banned, third.windows[0]?.remaining, third.windows[1]?.remaining], [false, true, 0, 23]);
    // Anonymous and refused without a strike: nothing to write, yet the hash is converted all the same.
    const anonymous: LimitRequest = { subject: 'anon', keyId: undefined, policy: POLICY };
    for (let i = 0; i < 7; i++) await oldCheck(admin, 'strikes', anonymous, now + i * 100);
    const refused = await limiter.check(anonymous);
    assert.deepEqual([refused.allowed, refused.windows[0]?.remaining, refused.retryAt], [false, 0, now - 500 + 11_000]);
    assert.equal(await admin.type(redisKeyNames('strikes').limits('anon')), 'string');
  });
});
