import assert from 'node:assert/strict';
import { channel } from 'node:diagnostics_channel';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { createRedisLedger, recordLedger } from '../src/admin/index.js';
import type { Identity } from '../src/auth/index.js';
import { CHANNELS, type RequestRecord } from '../src/events/index.js';
import { createPort, memoryChannelPair } from '../src/ipc/index.js';
import { createCalendar, createSharedLimiter, minuteAndDay, type Limiter, type LimitRequest, type Policy, type RateDecision } from '../src/ratelimit/index.js';
import { createPrimaryLimiter, hostLimits } from '../src/ratelimit/primary/index.js';
import { createRedisLimiter } from '../src/ratelimit/redis/index.js';
import { redisKeyNames, type RedisClient } from '../src/redis/index.js';
import { accountSubject } from '../src/ratelimit/limit-key.js';
import { connectedRedisClient, privateRedisClient } from './support/index.js';

// Issue 39, 2.6: one check that throws fails its own request, never the others of its batch.
// Checks asked in one turn of the event loop leave as one batch (one message to the primary, one
// script call to Redis); among them, requests whose policy the engine cannot read. And the admin
// ledger's notes, written in batches: one note Redis refuses is written again alone.

const FIVE = minuteAndDay('five', 5, 1000);
/** The in-process limiter throws on it (its windows are not a list), and so does the Redis call's encoding. */
const UNLISTED = { name: 'unlisted', windows: 5, ban: undefined } as unknown as Policy;
/** Encoded without a word, and the script raises a Lua error on it (a window of no length). */
const LENGTHLESS = { name: 'lengthless', windows: [{ name: 'minute', limit: 5, windowMs: 'soon', buckets: 10 }], ban: undefined } as unknown as Policy;

const request = (subject: string, policy: Policy): LimitRequest => ({ subject, keyId: `key-${subject}`, policy });

/** Each request's outcome: the decision's remaining minute, or the error's name. */
async function outcomes(limiter: Limiter, requests: readonly LimitRequest[]): Promise<(number | string)[]> {
  const settled = await Promise.allSettled(requests.map((r) => limiter.check(r)));
  return settled.map((s) => (s.status === 'fulfilled' ? ((s.value as RateDecision).windows[0]?.remaining ?? -1) : ((s.reason as Error).name ?? 'unnamed')));
}

test('limits in the primary: a check its limiter throws on fails alone, the others of the batch are decided', async () => {
  const pair = memoryChannelPair();
  const host = hostLimits(undefined);
  host.attach(createPort(pair.primary));
  const limiter = createPrimaryLimiter(createPort(pair.worker), 'process');
  try {
    const batch = [request('a', FIVE), request('broken', UNLISTED), request('b', FIVE), request('a', FIVE)];
    assert.deepEqual(await outcomes(limiter, batch), [4, 'CheckFaultError', 4, 3]);
    // Nothing was charged twice, nor left undecided.
    assert.equal((await limiter.check({ ...request('a', FIVE), peek: true })).windows[0]?.remaining, 3);
  } finally {
    pair.close();
  }
});

describe('limits in Redis: a request the script call cannot take', { skip: redisSkipReason() }, () => {
  const redis = privateRedisClient(1000);

  test('fails alone: the others of its call are decided, each charged once', async () => {
    const limiter = createRedisLimiter(redis.client(), { prefix: 'faults' });
    const batch = [request('a', FIVE), request('js', UNLISTED), request('b', FIVE), request('lua', LENGTHLESS), request('a', FIVE), request('c', FIVE)];
    assert.deepEqual(await outcomes(limiter, batch), [4, 'CheckFaultError', 4, 'CheckFaultError', 3, 4]);
    assert.deepEqual(
      await outcomes(limiter, [
        { ...request('a', FIVE), peek: true },
        { ...request('b', FIVE), peek: true },
      ]),
      [3, 4],
    );
  });

  test("is no failure of Redis: the circuit breaker stays closed, and the next requests are Redis's to decide", async () => {
    const limiter = createSharedLimiter({
      shared: createRedisLimiter(redis.client(), { prefix: 'breaker' }),
      onFailure: 'closed',
      localShare: 0.5,
      denyCacheMs: 0,
    });
    for (let i = 0; i < 5; i++) await assert.rejects(limiter.check(request('lua', LENGTHLESS)), { name: 'RateLimitUnavailableError' });
    const decided = await limiter.check(request('d', FIVE));
    assert.equal(decided.source, 'redis');
    assert.equal(decided.windows[0]?.remaining, 4);
  });
});

describe('the admin ledger in Redis: a note it cannot write', { skip: redisSkipReason() }, () => {
  let server: RedisServer;
  let admin: Redis;
  let client: RedisClient;
  before(async () => {
    server = await startRedis();
    admin = new Redis(server.url);
    client = await connectedRedisClient(server.url, 1000);
  });
  after(async () => {
    await client?.close();
    admin?.disconnect();
    await server?.close();
  });

  test('is written again alone: the notes of its batch that were written are not counted twice', async () => {
    const day = '2026-11-28';
    const ledger = createRedisLedger(client, 'notes');
    // The account 'bad' cannot take its refusal (its key holds a string): the others of the batch can.
    const badKey = redisKeyNames('notes').accountShadow(accountSubject('bad'), day);
    await admin.set(badKey, 'not a hash');
    let attempts = 0;
    let writtenWhole = 0;
    const source = {};
    const stop = recordLedger({
      ledger: {
        async write(notes) {
          attempts += 1;
          await ledger.write(notes);
          writtenWhole += 1;
        },
      },
      calendar: createCalendar(),
      now: () => Date.UTC(2026, 10, 28, 12),
      source,
      intervalMs: 5,
    });
    try {
      for (const account of ['good', 'bad', 'fine']) {
        const identity: Identity = { subject: account, keyId: `key-${account}`, plan: 'pro', expiresAt: undefined, limits: undefined };
        channel(CHANNELS.limitDecision).publish({
          request: { source } as RequestRecord,
          plan: 'trial',
          identity,
          decision: 'shadow_limited',
          startedAt: 0,
          durationMs: 0,
        });
      }
      await until(() => attempts >= 2);
      await admin.del(badKey);
      await until(() => writtenWhole >= 1);
      const counts = await Promise.all(['good', 'bad', 'fine'].map(async (account) => (await ledger.account(day, account))?.shadowRefusals));
      assert.deepEqual(counts, [{ trial: 1 }, { trial: 1 }, { trial: 1 }]);
    } finally {
      stop();
    }
  });
});

/** Resolves once `check` is true, asking every 5 ms (the recorder's timers are real ones). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    assert.ok(Date.now() < deadline, 'in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
