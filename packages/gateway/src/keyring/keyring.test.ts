import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryDir } from '@animal-store/testkit';
import { decodeJwt } from 'jose';
import { initKeyring, issueKey, KeyringError, listKeys, retireKey, revokeKey, rotateKey } from './keyring.js';
import { rerollKey } from './reroll-key.js';
import { parseDuration } from './parse-duration.js';

const fresh = () => join(temporaryDir('keyring-'), 'keys');

test('init writes a 0600 private key in a 0700 directory and a public-only JWKS', async () => {
  const dir = fresh();
  const kid = await initKeyring(dir, { issuer: 'i', audience: 'a' });
  assert.equal(statSync(join(dir, 'private')).mode & 0o777, 0o700);
  assert.equal(statSync(join(dir, 'private', `${kid}.json`)).mode & 0o777, 0o600);
  const jwks = JSON.parse(readFileSync(join(dir, 'public', 'jwks.json'), 'utf8')) as { keys: Record<string, unknown>[] };
  assert.deepEqual(
    jwks.keys.map((key) => [key.kid, key.alg, key.crv, 'd' in key]),
    [[kid, 'EdDSA', 'Ed25519', false]],
  );
  await assert.rejects(initKeyring(dir, { issuer: 'i', audience: 'a' }), KeyringError, 'no silent overwrite');
});

test('the register keeps ids and dates, never a key', async () => {
  const dir = fresh();
  await initKeyring(dir, { issuer: 'i', audience: 'a' });
  const { token, record } = await issueKey(dir, {
    plan: 'enterprise',
    sub: 'megacorp',
    ttlMs: parseDuration('90d'),
    limits: { minute: 9000 },
    now: Date.UTC(2026, 0, 1),
  });
  assert.deepEqual(listKeys(dir, Date.UTC(2026, 0, 2)), [{ ...record, revokedAt: undefined, stopped: undefined }]);
  assert.equal(listKeys(dir, Date.UTC(2026, 3, 1))[0]?.stopped, 'expired');
  assert.equal(record.expiresAt, '2026-04-01T00:00:00.000Z');
  for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (file.endsWith('.json')) assert.equal(readFileSync(join(dir, file), 'utf8').includes(token), false, file);
  }
  // Issue 39, 3.1: any plan, signed limits on any plan; a name no header can carry is refused.
  assert.deepEqual((await issueKey(dir, { plan: 'startup', sub: 'x', limits: { day: 5 } })).record.limits, { day: 5 });
  await assert.rejects(issueKey(dir, { plan: 'gold\r\nx: y', sub: 'x' }), /a plan name is 1 to 64 visible ASCII characters/);
});

test('rotation adds a kid and signs with it; the current kid cannot be retired', async () => {
  const dir = fresh();
  const first = await initKeyring(dir, { issuer: 'i', audience: 'a' });
  const second = await rotateKey(dir);
  assert.notEqual(first, second);
  assert.equal((await issueKey(dir, { plan: 'free', sub: 's' })).record.kid, second);
  assert.throws(() => retireKey(dir, second), /current signing key/);
  retireKey(dir, first);
  const kids = (JSON.parse(readFileSync(join(dir, 'public', 'jwks.json'), 'utf8')) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
  assert.deepEqual(kids, [second]);
});

test('list tells which keys stopped verifying: revoked, or signed by a retired kid', async () => {
  const dir = fresh();
  await initKeyring(dir, { issuer: 'i', audience: 'a' });
  const old = (await issueKey(dir, { plan: 'free', sub: 'old' })).record;
  const revoked = (await issueKey(dir, { plan: 'free', sub: 'gone' })).record;
  revokeKey(dir, revoked.jti);
  await rotateKey(dir);
  const current = (await issueKey(dir, { plan: 'free', sub: 'new' })).record;
  assert.deepEqual(
    listKeys(dir).map((key) => [key.jti, key.stopped]),
    [
      [old.jti, undefined],
      [revoked.jti, 'revoked'],
      [current.jti, undefined],
    ],
  );
  retireKey(dir, old.kid);
  assert.deepEqual(
    listKeys(dir).map((key) => [key.jti, key.stopped]),
    [
      [old.jti, 'retired'],
      [revoked.jti, 'revoked'],
      [current.jti, undefined],
    ],
  );
});

test('a keyring made before public/ is moved into the new layout on first use', async () => {
  const dir = fresh();
  await initKeyring(dir, { issuer: 'i', audience: 'a' });
  renameSync(join(dir, 'public', 'jwks.json'), join(dir, 'jwks.json'));
  renameSync(join(dir, 'public', 'revoked.json'), join(dir, 'revoked.json'));
  rmSync(join(dir, 'public'), { recursive: true });
  const { record } = await issueKey(dir, { plan: 'pro', sub: 'acme' });
  revokeKey(dir, record.jti);
  assert.deepEqual(readdirSync(join(dir, 'public')).sort(), ['jwks.json', 'revoked.json']);
  assert.equal(existsSync(join(dir, 'jwks.json')) || existsSync(join(dir, 'revoked.json')), false);
  assert.equal(listKeys(dir)[0]?.stopped, 'revoked');
});

test('durations: 90d, 12h, 30m, 1y; nothing else', () => {
  assert.equal(parseDuration('90d'), 90 * 86_400_000);
  assert.equal(parseDuration('12h'), 12 * 3_600_000);
  for (const bad of ['', '0d', '5', 'd', '1.5d', '-1d', '10x']) assert.equal(parseDuration(bad), undefined, bad);
});

test('reroll: a new key for the same account, plan, limits and lifetime; the old one refused from the end of its grace', async () => {
  const dir = fresh();
  await initKeyring(dir, { issuer: 'i', audience: 'a' });
  const T0 = Date.UTC(2026, 10, 1);
  const old = await issueKey(dir, { plan: 'enterprise', sub: 'megacorp', ttlMs: parseDuration('90d'), limits: { minute: 9000 }, now: T0 });
  const rerolled = await rerollKey(dir, old.record.jti, { graceMs: parseDuration('24h') as number, now: T0 + 3_600_000 });
  assert.deepEqual(
    { sub: rerolled.record.sub, plan: rerolled.record.plan, limits: rerolled.record.limits, replaces: rerolled.record.replaces },
    { sub: 'megacorp', plan: 'enterprise', limits: { minute: 9000 }, replaces: old.record.jti },
  );
  assert.equal(Date.parse(rerolled.record.expiresAt as string) - Date.parse(rerolled.record.issuedAt), 90 * 86_400_000, 'as long as the old one');
  assert.deepEqual(decodeJwt(rerolled.token).limits, { minute: 9000 });
  assert.equal(rerolled.refusedFrom, '2026-11-02T01:00:00.000Z');
  const during = listKeys(dir, T0 + 7_200_000);
  assert.deepEqual(
    during.map((key) => [key.jti, key.revokedAt, key.stopped]),
    [
      [old.record.jti, '2026-11-02T01:00:00.000Z', undefined],
      [rerolled.record.jti, undefined, undefined],
    ],
    'the old key is accepted during its grace',
  );
  assert.equal(listKeys(dir, T0 + 86_400_000 + 3_600_000)[0]?.stopped, 'revoked');
  // Revoked now, the grace is cut short; rerolled at once (--grace 0), it is refused at once.
  assert.deepEqual(revokeKey(dir, old.record.jti, T0 + 7_200_000), { revokedAt: '2026-11-01T02:00:00.000Z', already: false });
  const again = await rerollKey(dir, rerolled.record.jti, { graceMs: 0, now: T0 + 7_200_000 });
  assert.equal(again.refusedFrom, '2026-11-01T02:00:00.000Z');
  await assert.rejects(rerollKey(dir, 'never-issued', { graceMs: 0 }), /no key with that id was issued from this keyring .*; nothing was rerolled/);
});
