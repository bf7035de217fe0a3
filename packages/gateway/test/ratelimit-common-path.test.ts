import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { seededRandom } from './support/index.js';
import { createCalendar } from '../src/ratelimit/calendar.js';
import { monthWindow, type LimitRequest, type Policy } from '../src/ratelimit/index.js';
import { scriptCall } from '../src/ratelimit/redis/redis-call.js';
import { decisionsOf, valuesOf } from '../src/ratelimit/redis/redis-reply.js';
import { RATE_LIMIT_SCRIPT } from '../src/ratelimit/redis/redis-script.js';
import { redisKeyNames } from '../src/redis/index.js';

/** The script with its common path switched off: every request on the general path (`decide`). */
const DECIDE = 'decide(i, at, key, policy, strikes, mode, cost, shadow, extra, want, back, backAt)';
const CALL_COMMON = `if not (plain and common(i, key, policy, cost)) then ${DECIDE} end`;
const GENERAL_ONLY = RATE_LIMIT_SCRIPT.replace(CALL_COMMON, DECIDE);
/** The script as it is, counting the requests its common path decided. */
const DECIDED = '  end\n  return true\nend\n\n-- Writes back what the common path changed';
const COUNTING = RATE_LIMIT_SCRIPT.replace(DECIDED, DECIDED.replace('return true', "call('INCR', 'common-path-hits') return true"));
if (GENERAL_ONLY === RATE_LIMIT_SCRIPT || COUNTING === RATE_LIMIT_SCRIPT) throw new Error('the script changed: update the markers above');

/** Limits high enough for counts of every width (a bucket over 127, 255 and 65,535), and costs to match. */
const WIDE: Policy = {
  name: 'wide',
  windows: [
    { name: 'minute', limit: 300_000, windowMs: 10_000, buckets: 10 },
    { name: 'day', limit: 2_000_000, windowMs: 100_000, buckets: 10 },
  ],
  ban: { strikes: 3, strikeWindowMs: 5_000, banMs: 20_000 },
};
/** Small limits and a quick ban: refusals, strikes and bans, then accounts free of them again. */
const SMALL: Policy = {
  name: 'small',
  windows: [
    { name: 'minute', limit: 12, windowMs: 10_000, buckets: 10 },
    { name: 'day', limit: 60, windowMs: 100_000, buckets: 10 },
  ],
  ban: { strikes: 2, strikeWindowMs: 5_000, banMs: 20_000 },
};
const MONTHLY: Policy = { name: 'monthly', windows: [{ name: 'minute', limit: 50, windowMs: 10_000, buckets: 10 }, monthWindow(400)], ban: undefined };
const MINUTE_ONLY: Policy = { ...WIDE, name: 'minute-only', windows: [WIDE.windows[0] as Policy['windows'][number]] };

describe('the common path decides and writes exactly what the general path does', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  let admin: Redis;

  before(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
  });
  after(async () => {
    admin?.disconnect();
    await redis?.close();
  });

  /** An account's state as MessagePack reads it (any layout), its windows in the order of their letters. */
  async function stateOf(prefix: string, subject: string): Promise<unknown> {
    const json = (await admin.eval(
      "local v = redis.call('GET', KEYS[1]) if not v then return '' end return cjson.encode(cmsgpack.unpack(v))",
      1,
      redisKeyNames(prefix).limits(subject),
    )) as string;
    if (json === '') return undefined;
    const [windows, ...rest] = JSON.parse(json) as [unknown[], ...unknown[]];
    const byLetter: unknown[][] = [];
    for (let i = 0; i < windows.length; i += 4) byLetter.push(windows.slice(i, i + 4));
    byLetter.sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    return [byLetter, ...rest];
  }

  test('property: random batches of costs, peeks, shadow, layers, months, bans and a clock that steps back', async () => {
    const calendar = createCalendar();
    const met = { widest: 0, requests: 0 };
    await admin.del('common-path-hits');
    for (let seed = 1; seed <= 20; seed++) {
      const next = seededRandom(seed);
      let now = 1_800_000_000_000 + Math.floor(next() * 100_000);
      const accounts = ['a', 'b', 'c'];
      const run = async (script: string, prefix: string, batch: readonly LimitRequest[]) => {
        const call = scriptCall(batch, { keyOf: redisKeyNames(prefix).limits, denyList: undefined, clock: now, deadline: '', holder: 'test' }, calendar, now);
        // Compared as decoded: the common path answers an admission in the reply's short form.
        return decisionsOf(batch, valuesOf((await admin.callBuffer('EVAL', script, call.keys.length, ...call.keys, ...call.args)) as Buffer), calendar);
      };
      for (let step = 0; step < 150; step++) {
        const r = next();
        now +=
          r < 0.1 ? -Math.floor(next() * 3_000) : r < 0.6 ? Math.floor(next() * 400) : r < 0.95 ? Math.floor(next() * 2_500) : Math.floor(next() * 120_000);
        const batch: LimitRequest[] = Array.from({ length: 1 + Math.floor(next() * 6) }, () => {
          const subject = accounts[Math.floor(next() * accounts.length)] as string;
          const p = next();
          // Bans and strikes send an account's requests to the general path until they end: one account has them.
          const policy = subject === 'c' && p < 0.5 ? SMALL : p < 0.6 ? WIDE : p < 0.8 ? MONTHLY : MINUTE_ONLY;
          const c = next();
          const cost = policy !== WIDE ? 1 + Math.floor(next() * 3) : c < 0.6 ? 1 : c < 0.9 ? 1 + Math.floor(next() * 300) : 1 + Math.floor(next() * 70_000);
          const q = next();
          return {
            subject,
            keyId: next() < 0.2 ? undefined : `${subject}-k${Math.floor(next() * 2)}`,
            policy,
            cost,
            ...(q < 0.05 ? { peek: true } : q < 0.1 ? { shadow: true } : q < 0.15 ? { layers: [{ subject: 'op:all', policy: SMALL }] } : {}),
          };
        });
        const where = `seed ${seed}, step ${step}`;
        const general = await run(GENERAL_ONLY, `g${seed}`, batch);
        assert.deepEqual(await run(RATE_LIMIT_SCRIPT, `p${seed}`, batch), general, where);
        assert.deepEqual(await run(COUNTING, `c${seed}`, batch), general, `${where} (counting)`);
        for (const subject of [...accounts, 'op:all']) {
          const state = await stateOf(`g${seed}`, subject);
          assert.deepEqual(await stateOf(`p${seed}`, subject), state, `${where}: ${subject}'s state`);
          for (const window of (state as [unknown[][]] | undefined)?.[0] ?? [])
            if (Array.isArray(window[3])) met.widest = Math.max(met.widest, ...(window[3] as number[]));
        }
        met.requests += batch.length;
      }
    }
    const hits = Number(await admin.get('common-path-hits'));
    // The walks went both ways often, and met counts of every width.
    assert.ok(hits > met.requests / 4 && hits < met.requests * 0.9 && met.widest >= 65_536, JSON.stringify({ hits, ...met }));
  });

  test("an account's first request, and a window its plan gained, are decided on the common path, as the general path would", async () => {
    const calendar = createCalendar();
    const now = 1_800_000_123_456;
    const run = async (script: string, prefix: string, batch: readonly LimitRequest[]) => {
      const call = scriptCall(batch, { keyOf: redisKeyNames(prefix).limits, denyList: undefined, clock: now, deadline: '', holder: 'test' }, calendar, now);
      return decisionsOf(batch, valuesOf((await admin.callBuffer('EVAL', script, call.keys.length, ...call.keys, ...call.args)) as Buffer), calendar);
    };
    // New accounts (sliding windows, and a month), then one of them under a plan with a window it has none of.
    const batches: LimitRequest[][] = [
      [
        { subject: 'n1', keyId: 'k1', policy: WIDE, cost: 3 },
        { subject: 'n2', keyId: undefined, policy: MONTHLY },
        { subject: 'n3', keyId: 'k3', policy: MINUTE_ONLY, cost: 70_000 },
      ],
      [{ subject: 'n3', keyId: 'k3', policy: WIDE, cost: 2 }],
    ];
    for (const [i, batch] of batches.entries()) {
      await admin.del('common-path-hits');
      const general = await run(GENERAL_ONLY, 'first-g', batch);
      assert.deepEqual(await run(COUNTING, 'first-c', batch), general, `batch ${i + 1}`);
      assert.equal(Number(await admin.get('common-path-hits')), batch.length, `batch ${i + 1}: every request on the common path`);
      for (const subject of ['n1', 'n2', 'n3']) assert.deepEqual(await stateOf('first-c', subject), await stateOf('first-g', subject), `${subject}'s state`);
    }
  });
});
