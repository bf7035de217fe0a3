import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { connectedRedisClient, seededRandom } from './support/index.js';
import { OLD_MSGPACK_RATE_LIMIT_SCRIPT } from './fixtures/old-msgpack-script.js';
import { createCalendar } from '../src/ratelimit/calendar.js';
import { createMemoryLimiter } from '../src/ratelimit/memory/index.js';
import type { LimitRequest, Policy, RateDecision } from '../src/ratelimit/index.js';
import { createRedisLimiter } from '../src/ratelimit/redis/index.js';
import { scriptCall, type ScriptCall } from '../src/ratelimit/redis/redis-call.js';
import { decisionsOf } from '../src/ratelimit/redis/redis-reply.js';
import { redisKeyNames, type RedisClient } from '../src/redis/index.js';

/** Small windows, a quick ban, and costs: random walks meet every path of both scripts. */
const POLICY: Policy = {
  name: 'test',
  windows: [
    { name: 'minute', limit: 300, windowMs: 10_000, buckets: 10 },
    { name: 'day', limit: 1200, windowMs: 100_000, buckets: 10 },
  ],
  ban: { strikes: 3, strikeWindowMs: 5_000, banMs: 30_000 },
};
/** The same minute window alone: an account's day window is then kept, not decided. */
const MINUTE_ONLY: Policy = { ...POLICY, name: 'minute-only', windows: [POLICY.windows[0] as Policy['windows'][number]] };

/** What must be identical, whichever instance decided. */
const view = (d: RateDecision) => ({ allowed: d.allowed, banned: d.banned, retryAt: d.retryAt, now: d.now, windows: d.windows });

/**
 * A call's ARGV as the release before sent it: the header and policies, then every request in its
 * full form, field by field (this release packs them in one string, `packedRequests`), the short
 * form (a key index below 0: decided and charged at a cost, nothing else) written out.
 */
function fullForms(call: ScriptCall): (string | number)[] {
  const full = call.args.slice(0, -1) as (string | number)[];
  const fields = call.fields;
  let at = 0;
  for (let i = 0; i < Number(full[1]); i++) {
    const key = Number(fields[at]);
    if (key < 0) {
      const [, keyId, checks, policy, cost] = fields.slice(at, at + 5);
      full.push(-key, keyId as string, checks as string, policy as number, 0, '0', cost as number, '0', 0, 0, 0, 0);
      at += 5;
    } else {
      const count = 12 + 2 * Number(fields[at + 8]);
      full.push(...fields.slice(at, at + count));
      at += count;
    }
  }
  return full;
}

/**
 * An instance of the release before: its script, with this release's calls in full forms
 * (`fullForms`) less the holder of leases (ARGV 6, which that release did not send), and its
 * replies, which are this release's for requests that are no peek.
 */
function oldInstance(admin: Redis, prefix: string, now: () => number) {
  const calendar = createCalendar();
  return async (requests: readonly LimitRequest[]): Promise<RateDecision[]> => {
    const call = scriptCall(requests, { keyOf: redisKeyNames(prefix).limits, denyList: undefined, clock: now(), deadline: '', holder: '' }, calendar, now());
    const args = fullForms(call).filter((_, i) => i !== 5);
    const reply = (await admin.eval(OLD_MSGPACK_RATE_LIMIT_SCRIPT, call.keys.length, ...call.keys, ...args)) as number[];
    return decisionsOf(requests, reply, calendar).decisions;
  };
}

describe('upgrading from the release that wrote an account with cmsgpack.pack', { skip: redisSkipReason() }, () => {
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

  test('property: an old and a new instance on one Redis, then the new alone, decide as the new alone and as the in-process limiter', async () => {
    const met = { oldLayout: 0, newLayoutReadByOld: 0, bans: 0, refused: 0 };
    for (let seed = 1; seed <= 16; seed++) {
      const next = seededRandom(seed);
      let now = 1_800_000_000_000 + Math.floor(next() * 100_000);
      const older = oldInstance(admin, `o${seed}`, () => now);
      const upgraded = createRedisLimiter(client, { prefix: `o${seed}`, now: () => now });
      const alone = createRedisLimiter(reference, { prefix: `n${seed}`, now: () => now });
      const inProcess = createMemoryLimiter({ now: () => now });
      const accounts = ['a', 'b', 'c'];
      const layout = async (account: string) => (await admin.getBuffer(redisKeyNames(`o${seed}`).limits(account)))?.[0];
      // The old instance alone (every account in its layout), then both in turn at random, then the new alone.
      const mixedAt = 20 + Math.floor(next() * 40);
      const newAloneAt = mixedAt + 60 + Math.floor(next() * 40);
      for (let step = 0; step < newAloneAt + 60; step++) {
        const r = next();
        now += r < 0.5 ? Math.floor(next() * 40) : r < 0.9 ? Math.floor(next() * 1_500) : Math.floor(next() * 25_000);
        if (step === mixedAt) for (const account of accounts) if ((await layout(account)) === 0x93) met.oldLayout++;
        const useOld = step < mixedAt || (step < newAloneAt && next() < 0.5);
        if (useOld && step >= mixedAt) for (const account of accounts) if ((await layout(account)) === 0xdc) met.newLayoutReadByOld++;
        const size = 1 + Math.floor(next() * 6);
        const batch: LimitRequest[] = Array.from({ length: size }, () => {
          const subject = accounts[Math.floor(next() * accounts.length)] as string;
          // A key belongs to one account (the in-process limiter keeps bans by key id alone).
          const keyId = next() < 0.2 ? undefined : `${subject}-k${Math.floor(next() * 2)}`;
          const cost = next() < 0.7 ? 1 : 1 + Math.floor(next() * 200);
          return { subject, keyId, policy: next() < 0.2 ? MINUTE_ONLY : POLICY, cost };
        });
        const decided = useOld ? await older(batch) : await Promise.all(batch.map((request) => upgraded.check(request)));
        for (let i = 0; i < batch.length; i++) {
          const request = batch[i] as LimitRequest;
          const where = `seed ${seed}, step ${step} (${useOld ? 'old' : 'new'} instance; mixed from ${mixedAt}, new alone from ${newAloneAt}), request ${i}: ${request.subject} ${request.keyId ?? '-'} ${request.policy.name} cost ${request.cost}`;
          const expected = view(await alone.check(request));
          assert.deepEqual(view(decided[i] as RateDecision), expected, where);
          assert.deepEqual(view(await inProcess.check(request)), expected, `${where} (in process)`);
          if (expected.banned) met.bans++;
          else if (!expected.allowed) met.refused++;
        }
      }
      for (const account of accounts) {
        const first = await layout(account);
        assert.ok(first === undefined || first === 0xdc, `seed ${seed}: ${account} is in the new layout once the new instance alone wrote it`);
      }
    }
    // The walks met the old layout, the old instance reading the new one, bans and refusals.
    assert.ok(met.oldLayout >= 30 && met.newLayoutReadByOld >= 100 && met.bans >= 10 && met.refused >= 100, JSON.stringify(met));
  });

  test('counts carry over: windows the old instance filled stay full on the new one, and the reverse', async () => {
    const now = 1_800_000_000_500;
    const older = oldInstance(admin, 'carry', () => now);
    const upgraded = createRedisLimiter(client, { prefix: 'carry', now: () => now });
    const request: LimitRequest = { subject: 'carried', keyId: 'k', policy: POLICY, cost: 100 };
    for (let i = 0; i < 2; i++) assert.equal((await older([request]))[0]?.allowed, true);
    assert.equal((await admin.getBuffer(redisKeyNames('carry').limits('carried')))?.[0], 0x93, 'written in the old layout');
    const third = await upgraded.check(request);
    assert.deepEqual([third.allowed, third.windows[0]?.remaining, third.windows[1]?.remaining], [true, 0, 900]);
    assert.equal((await admin.getBuffer(redisKeyNames('carry').limits('carried')))?.[0], 0xdc, 'written in the new layout');
    const refused = (await older([{ ...request, cost: 1 }]))[0];
    assert.deepEqual([refused?.allowed, refused?.windows[0]?.remaining, refused?.windows[1]?.remaining], [false, 0, 900]);
  });
});
