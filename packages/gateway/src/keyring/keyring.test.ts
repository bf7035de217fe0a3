import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { initKeyring, issueKey, KeyringError, listKeys, retireKey, rotateKey } from './keyring.js';
import { parseDuration } from './parse-duration.js';

const fresh = () => join(mkdtempSync(join(tmpdir(), 'keyring-')), 'keys');

test('init writes a 0600 private key in a 0700 directory and a public-only JWKS', async () => {
  const dir = fresh();
  const kid = await initKeyring(dir, { issuer: 'i', audience: 'a' });
  assert.equal(statSync(join(dir, 'private')).mode & 0o777, 0o700);
  assert.equal(statSync(join(dir, 'private', `${kid}.json`)).mode & 0o777, 0o600);
  const jwks = JSON.parse(readFileSync(join(dir, 'jwks.json'), 'utf8')) as { keys: Record<string, unknown>[] };
  assert.deepEqual(jwks.keys.map((key) => [key.kid, key.alg, key.crv, 'd' in key]), [[kid, 'EdDSA', 'Ed25519', false]]);
  await assert.rejects(initKeyring(dir, { issuer: 'i', audience: 'a' }), KeyringError, 'no silent overwrite');
});

test('the register keeps ids and dates, never a key', async () => {
  const dir = fresh();
  await initKeyring(dir, { issuer: 'i', audience: 'a' });
  const { token, record } = await issueKey(dir, { plan: 'enterprise', sub: 'megacorp', ttlMs: parseDuration('90d'), limits: { minute: 9000 }, now: Date.UTC(2026, 0, 1) });
  assert.deepEqual(listKeys(dir), [{ ...record, revokedAt: undefined }]);
  assert.equal(record.expiresAt, '2026-04-01T00:00:00.000Z');
  for (const file of readdirSync(dir)) {
    if (file.endsWith('.json')) assert.equal(readFileSync(join(dir, file), 'utf8').includes(token), false, file);
  }
  await assert.rejects(issueKey(dir, { plan: 'pro', sub: 'x', limits: { day: 5 } }), /enterprise plan only/);
});

test('rotation adds a kid and signs with it; the current kid cannot be retired', async () => {
  const dir = fresh();
  const first = await initKeyring(dir, { issuer: 'i', audience: 'a' });
  const second = await rotateKey(dir);
  assert.notEqual(first, second);
  assert.equal((await issueKey(dir, { plan: 'free', sub: 's' })).record.kid, second);
  assert.throws(() => retireKey(dir, second), /current signing key/);
  retireKey(dir, first);
  const kids = (JSON.parse(readFileSync(join(dir, 'jwks.json'), 'utf8')) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
  assert.deepEqual(kids, [second]);
});

test('durations: 90d, 12h, 30m, 1y; nothing else', () => {
  assert.equal(parseDuration('90d'), 90 * 86_400_000);
  assert.equal(parseDuration('12h'), 12 * 3_600_000);
  for (const bad of ['', '0d', '5', 'd', '1.5d', '-1d', '10x']) assert.equal(parseDuration(bad), undefined, bad);
});
