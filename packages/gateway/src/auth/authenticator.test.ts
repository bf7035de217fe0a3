import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAuthenticator } from './authenticator.js';
import { isHeaderSafe } from '../identity/index.js';
import { InvalidKeyError, KeySourceUnavailableError } from './key-crypto.js';
import type { KeyVerifier } from './key-verifier.js';
import type { RevocationList } from './revocations.js';

const T0 = 1_800_000_000_000;
const TOKEN = 'aaa.bbb.ccc';

/** Stands in for jose: verifies any token into `payload`, unless expired at the injected time. */
function fakeVerifier(clock: () => number, payload: Record<string, unknown>) {
  let calls = 0;
  let version = 0;
  const verifier: KeyVerifier = {
    async verify() {
      calls += 1;
      if (typeof payload.exp === 'number' && clock() >= payload.exp * 1000) throw new InvalidKeyError('ERR_JWT_EXPIRED');
      return payload;
    },
    version: () => version,
  };
  return { verifier, calls: () => calls, rotate: () => (version += 1) };
}

const revokedSet = (set: Set<string>): RevocationList => ({ isRevoked: async (id) => set.has(id), close() {} });
const claims = { sub: 'acme', jti: 'k1', plan: 'pro', iat: T0 / 1000 };

test('a verified key is served from the cache: one signature check for many requests', async () => {
  const now = T0;
  const fake = fakeVerifier(() => now, claims);
  const authenticate = createAuthenticator({ verifier: fake.verifier, revocations: revokedSet(new Set()), cacheSize: 10, now: () => now });
  for (let i = 0; i < 5; i++) assert.equal((await authenticate(`Bearer ${TOKEN}`)).kind, 'authenticated');
  assert.equal(fake.calls(), 1);
});

test('the cache never serves a key past its exp', async () => {
  let now = T0;
  const fake = fakeVerifier(() => now, { ...claims, exp: T0 / 1000 + 60 });
  const authenticate = createAuthenticator({ verifier: fake.verifier, revocations: revokedSet(new Set()), cacheSize: 10, now: () => now });
  assert.equal((await authenticate(`Bearer ${TOKEN}`)).kind, 'authenticated');
  now = T0 + 59_999;
  assert.equal((await authenticate(`Bearer ${TOKEN}`)).kind, 'authenticated');
  assert.equal(fake.calls(), 1);
  now = T0 + 60_000;
  const expired = await authenticate(`Bearer ${TOKEN}`);
  assert.deepEqual(expired, { kind: 'rejected', tokenSent: true, reason: 'ERR_JWT_EXPIRED' });
  assert.equal(fake.calls(), 2, 'verified again, not served from the cache');
});

test('the cache never serves a revoked key, and revocation is checked every time', async () => {
  const revoked = new Set<string>();
  const fake = fakeVerifier(() => T0, claims);
  const authenticate = createAuthenticator({ verifier: fake.verifier, revocations: revokedSet(revoked), cacheSize: 10, now: () => T0 });
  assert.equal((await authenticate(`Bearer ${TOKEN}`)).kind, 'authenticated');
  revoked.add('k1');
  assert.deepEqual(await authenticate(`Bearer ${TOKEN}`), { kind: 'rejected', tokenSent: true, reason: 'revoked', keyId: 'k1' });
});

test('a changed key set forgets every earlier verification', async () => {
  const fake = fakeVerifier(() => T0, claims);
  const authenticate = createAuthenticator({ verifier: fake.verifier, revocations: revokedSet(new Set()), cacheSize: 10, now: () => T0 });
  await authenticate(`Bearer ${TOKEN}`);
  fake.rotate();
  await authenticate(`Bearer ${TOKEN}`);
  assert.equal(fake.calls(), 2);
});

test('the cache is bounded: the least recently used key goes first', async () => {
  const fake = fakeVerifier(() => T0, claims);
  const authenticate = createAuthenticator({ verifier: fake.verifier, revocations: revokedSet(new Set()), cacheSize: 2, now: () => T0 });
  for (const token of ['a.a.a', 'b.b.b', 'a.a.a', 'c.c.c', 'a.a.a']) await authenticate(`Bearer ${token}`);
  assert.equal(fake.calls(), 3, 'a stayed (used recently), b was evicted by c');
  await authenticate('Bearer b.b.b');
  assert.equal(fake.calls(), 4);
});

test('an unreachable key server is "unavailable", not "rejected"', async () => {
  const verifier: KeyVerifier = {
    verify: async () => {
      throw new KeySourceUnavailableError(new Error('connect ECONNREFUSED'));
    },
    version: () => 0,
  };
  const authenticate = createAuthenticator({ verifier, revocations: revokedSet(new Set()), cacheSize: 10, now: () => T0 });
  assert.equal((await authenticate(`Bearer ${TOKEN}`)).kind, 'unavailable');
});

test('limits signed into a key are read on any plan (issue 39, 3.1); a plan name no header can carry is no key', async () => {
  const limits = { minute: 5000, day: 1_000_000 };
  for (const [plan, expected] of [
    ['enterprise', limits],
    ['pro', limits],
    ['startup', limits],
    ['gold\r\nx-api-subject: root', 'rejected'],
    ['', 'rejected'],
  ] as const) {
    const fake = fakeVerifier(() => T0, { ...claims, plan, limits });
    const authenticate = createAuthenticator({ verifier: fake.verifier, revocations: revokedSet(new Set()), cacheSize: 0, now: () => T0 });
    const outcome = await authenticate(`Bearer ${TOKEN}`);
    if (expected === 'rejected') {
      assert.equal(outcome.kind, 'rejected', JSON.stringify(plan));
      continue;
    }
    assert.ok(outcome.kind === 'authenticated');
    assert.deepEqual(outcome.identity.limits, expected);
  }
});

test('isHeaderSafe: visible ASCII and inner spaces only', () => {
  for (const safe of ['acme', 'a', 'acme corp', 'x!~{}"\'<>@:;,/\\', 'a  b']) assert.equal(isHeaderSafe(safe), true, JSON.stringify(safe));
  const unsafe = ['', 'Łódź-日本語', 'café', 'a\u0000b', 'a\rb', 'a\nb', 'a\u007fb', 'a\tb', ' alice', 'alice ', ' ', '\u00a0x', 'emoji 😀'];
  for (const value of unsafe) assert.equal(isHeaderSafe(value), false, JSON.stringify(value));
});

test('a key whose sub or jti no header can carry is rejected at verification, with a message that says why, and never cached', async () => {
  for (const [claim, value] of [
    ['sub', 'Łódź-日本語'],
    ['sub', 'alice '],
    ['sub', 'a\u0000b'],
    ['jti', 'k\r\n1'],
  ] as const) {
    const fake = fakeVerifier(() => T0, { ...claims, [claim]: value });
    const authenticate = createAuthenticator({ verifier: fake.verifier, revocations: revokedSet(new Set()), cacheSize: 10, now: () => T0 });
    for (let i = 0; i < 2; i++) {
      const outcome = await authenticate(`Bearer ${TOKEN}`);
      assert.ok(outcome.kind === 'rejected', `${claim} ${JSON.stringify(value)}`);
      assert.equal(outcome.tokenSent, true);
      assert.match(outcome.message ?? '', new RegExp(`\\(${claim}\\) holds characters an HTTP header cannot carry`));
    }
    assert.equal(fake.calls(), 2, 'verified each time: a refused key is not remembered');
  }
});
