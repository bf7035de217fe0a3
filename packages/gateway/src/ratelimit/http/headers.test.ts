import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseList, type Item } from 'structured-headers';
import { exhaustedWindows, rateLimitHeaders } from './headers.js';
import { decision } from '../decision.js';
import { createMemoryLimiter } from '../memory/index.js';
import { minuteAndDay } from '../policy.js';

const FREE = minuteAndDay('free', 60, 1000, { strikes: 3, strikeWindowMs: 60_000, banMs: 300_000 });
/** 2030-01-01T00:00:00.000Z: a minute edge and a day-bucket edge (24 min buckets). */
const EDGE = Date.UTC(2030, 0, 1);

test('headers of a fresh account: the minute is closest to refusing', async () => {
  const limiter = createMemoryLimiter({ now: () => EDGE + 250 });
  const headers = rateLimitHeaders(await limiter.check({ subject: 'a', keyId: 'k', policy: FREE }));
  assert.deepEqual(headers, {
    'ratelimit-policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
    ratelimit: '"minute";r=59;t=61, "day";r=999;t=87840',
    'x-ratelimit-limit': '60',
    'x-ratelimit-remaining': '59',
    'x-ratelimit-reset': String(EDGE / 1000 + 61),
  });
});

test('Retry-After and Reset are exact at a minute edge', async () => {
  let now = EDGE + 59_500; // the last half second of a minute
  const limiter = createMemoryLimiter({ now: () => now });
  for (let i = 0; i < 60; i++) assert.equal((await limiter.check({ subject: 'a', keyId: 'k', policy: FREE })).allowed, true);
  now = EDGE + 59_900;
  const refused = await limiter.check({ subject: 'a', keyId: 'k', policy: FREE });
  assert.equal(refused.allowed, false);
  // All 60 sit in the bucket [59 s, 60 s); it leaves the conservative window at 59 + 60 + 1 = 120 s.
  assert.equal(refused.retryAt, EDGE + 120_000);
  const headers = rateLimitHeaders(refused);
  assert.equal(headers['retry-after'], '61');
  assert.equal(headers['x-ratelimit-reset'], String(EDGE / 1000 + 120));
  assert.ok(Number(headers['x-ratelimit-reset']) >= Math.floor(now / 1000) + Number(headers['retry-after']));
  now = EDGE + 119_999;
  assert.equal((await limiter.check({ subject: 'a', keyId: 'k2', policy: FREE })).allowed, false, 'not a millisecond early');
  now = EDGE + 120_000;
  assert.equal((await limiter.check({ subject: 'a', keyId: 'k2', policy: FREE })).allowed, true);
});

test('the day limit binds while the minute is fresh, with a Retry-After to its bucket edge', async () => {
  let now = EDGE;
  const limiter = createMemoryLimiter({ now: () => now });
  const policy = minuteAndDay('small', 60, 100);
  for (let i = 0; i < 100; i++) {
    now = EDGE + i * 2_000; // 30 a minute: the minute limit never binds
    assert.equal((await limiter.check({ subject: 'd', keyId: undefined, policy })).allowed, true);
  }
  now = EDGE + 3_600_000;
  const refused = await limiter.check({ subject: 'd', keyId: undefined, policy });
  assert.equal(refused.allowed, false);
  const headers = rateLimitHeaders(refused);
  assert.equal(headers['x-ratelimit-limit'], '100', 'the day is the window closest to refusing');
  assert.equal(headers['x-ratelimit-remaining'], '0');
  // The first day bucket (24 min wide) holds all 100 requests (they span 200 s); it leaves at 61 × 24 min.
  assert.equal(refused.retryAt, EDGE + 61 * 1_440_000);
  assert.equal(headers['retry-after'], String((61 * 1_440_000 - 3_600_000) / 1000));
});

test('a rejected request charges nothing', async () => {
  let now = EDGE;
  const limiter = createMemoryLimiter({ now: () => now });
  const policy = minuteAndDay('tiny', 2, 3);
  await limiter.check({ subject: 'r', keyId: undefined, policy });
  await limiter.check({ subject: 'r', keyId: undefined, policy });
  for (let i = 0; i < 10; i++) assert.equal((await limiter.check({ subject: 'r', keyId: undefined, policy })).allowed, false);
  now = EDGE + 62_000;
  const next = await limiter.check({ subject: 'r', keyId: undefined, policy });
  assert.equal(next.allowed, true, 'the refusals did not count against the day');
  assert.equal(next.windows[1]?.remaining, 0);
});

test('bans: after the strikes, for the ban time, then lifted', async () => {
  let now = EDGE;
  const limiter = createMemoryLimiter({ now: () => now });
  const policy = minuteAndDay('free', 1, 100, { strikes: 3, strikeWindowMs: 60_000, banMs: 300_000 });
  assert.equal((await limiter.check({ subject: 'b', keyId: 'k', policy })).allowed, true);
  assert.equal((await limiter.check({ subject: 'b', keyId: 'k', policy })).banned, false);
  assert.equal((await limiter.check({ subject: 'b', keyId: 'k', policy })).banned, false);
  const banned = await limiter.check({ subject: 'b', keyId: 'k', policy });
  assert.equal(banned.banned, true);
  assert.equal(rateLimitHeaders(banned)['retry-after'], '300');
  now = EDGE + 299_999;
  assert.equal((await limiter.check({ subject: 'b', keyId: 'k', policy })).banned, true);
  now = EDGE + 300_000;
  assert.equal((await limiter.check({ subject: 'b', keyId: 'k', policy })).allowed, true);
});

test('a request the limit can never admit gets no Retry-After', async () => {
  const limiter = createMemoryLimiter({ now: () => EDGE });
  const decision = await limiter.check({ subject: 'z', keyId: undefined, policy: minuteAndDay('closed', 0, 0) });
  assert.equal(decision.allowed, false);
  assert.equal(decision.retryAt, undefined);
  assert.equal(rateLimitHeaders(decision)['retry-after'], undefined);
});

/**
 * Throws unless the draft fields of `headers` are what draft-ietf-httpapi-ratelimit-headers-11
 * allows: RFC 9651 Lists of String items; RateLimit-Policy with q (non-negative Integer) and w
 * (positive Integer); RateLimit naming those policies with r and t (non-negative Integers); a
 * Retry-After no earlier than the effective window of an exhausted policy.
 */
function assertDraft11(headers: Record<string, string>): void {
  const policies = parseList(headers['ratelimit-policy'] ?? '') as Item[];
  assert.ok(policies.length > 0, 'RateLimit-Policy is a non-empty List');
  for (const [name, params] of policies) {
    assert.equal(typeof name, 'string', 'a policy item is a String');
    const q = params.get('q');
    const w = params.get('w');
    assert.ok(Number.isInteger(q) && (q as number) >= 0, `q=${String(q)}`);
    assert.ok(Number.isInteger(w) && (w as number) > 0, `w=${String(w)}`);
  }
  const limits = parseList(headers.ratelimit ?? '') as Item[];
  assert.deepEqual(
    limits.map(([name]) => name),
    policies.map(([name]) => name),
    'RateLimit names the policies',
  );
  const retryAfter = headers['retry-after'] === undefined ? undefined : Number(headers['retry-after']);
  for (const [name, params] of limits) {
    const r = params.get('r');
    const t = params.get('t');
    assert.ok(Number.isInteger(r) && (r as number) >= 0, `${String(name)} r=${String(r)}`);
    assert.ok(Number.isInteger(t) && (t as number) >= 0, `${String(name)} t=${String(t)}`);
    if (retryAfter !== undefined && r === 0)
      assert.ok(retryAfter >= (t as number), `Retry-After ${retryAfter} before the end of ${String(name)}'s window (t=${String(t)})`);
  }
}

test('draft-11: the fields hold over random traffic, refusals and bans included', async () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let now = EDGE;
  const limiter = createMemoryLimiter({ now: () => now });
  const policy = minuteAndDay('small', 5, 40, { strikes: 4, strikeWindowMs: 60_000, banMs: 90_000 });
  const seen = { allowed: 0, refused: 0, banned: 0 };
  for (let i = 0; i < 3000; i++) {
    now += Math.floor(random() * 4000);
    const decision = await limiter.check({ subject: 's', keyId: 'k', policy });
    seen[decision.banned ? 'banned' : decision.allowed ? 'allowed' : 'refused'] += 1;
    const headers = rateLimitHeaders(decision);
    assertDraft11(headers);
    if (decision.banned) assert.match(headers.ratelimit ?? '', /^"minute";r=0;t=\d+, "day";r=0;t=\d+$/);
  }
  assert.ok(seen.allowed > 0 && seen.refused > 0 && seen.banned > 0, JSON.stringify(seen));
});

test('draft-11: a banned key is shown no quota until its ban ends, in RateLimit as in X-RateLimit-Remaining', async () => {
  let now = EDGE;
  const limiter = createMemoryLimiter({ now: () => now });
  const policy = minuteAndDay('free', 1, 100, { strikes: 2, strikeWindowMs: 60_000, banMs: 300_000 });
  await limiter.check({ subject: 'b', keyId: 'k', policy });
  await limiter.check({ subject: 'b', keyId: 'k', policy });
  now += 61_000; // the minute has room again, the ban does not care
  const banned = await limiter.check({ subject: 'b', keyId: 'k', policy });
  if (!banned.banned) await limiter.check({ subject: 'b', keyId: 'k', policy });
  const headers = rateLimitHeaders(await limiter.check({ subject: 'b', keyId: 'k', policy }));
  assert.equal(headers['x-ratelimit-remaining'], '0');
  const retryAfter = Number(headers['retry-after']);
  assert.ok(retryAfter > 60);
  assert.equal(headers.ratelimit, `"minute";r=0;t=${retryAfter}, "day";r=0;t=${retryAfter}`);
  assertDraft11(headers);
});

test('draft-11: a policy without windows sends neither field (both are non-empty Lists)', () => {
  assert.deepEqual(
    rateLimitHeaders(decision('allowed', 'process', { policy: { name: 'none', windows: [], ban: undefined }, windows: [], retryAt: undefined, now: EDGE })),
    {},
  );
});

test("a refusal names the windows it found exhausted (problem details' violated-policies)", () => {
  const policy = minuteAndDay('pro', 60, 1000);
  const refusal = (minute: number, day: number) =>
    decision('limited', 'process', {
      policy,
      windows: [
        { name: 'minute', limit: 60, windowMs: 60_000, remaining: minute, resetAt: EDGE + 42_000 },
        { name: 'day', limit: 1000, windowMs: 86_400_000, remaining: day, resetAt: EDGE + 86_000_000 },
      ],
      retryAt: EDGE + 42_000,
      now: EDGE,
    });
  assert.deepEqual(exhaustedWindows(refusal(0, 940)), ['minute']);
  assert.deepEqual(exhaustedWindows(refusal(0, 0)), ['minute', 'day']);
  assert.deepEqual(exhaustedWindows(refusal(10, 100)), []);
  assert.deepEqual(exhaustedWindows(decision('limited', 'process', { policy, windows: [], retryAt: undefined, now: EDGE })), []);
});
