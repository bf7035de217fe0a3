import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryDir } from '@animal-store/testkit';
import { addToDenyList, ensureDenyList, readDenyList } from './deny-list-file.js';
import { createFileRevocations } from './revocations.js';

const T0 = Date.UTC(2026, 10, 28, 12);

test('a key is refused from its date: at once for a revocation, at the end of a grace period for a rerolled key', async () => {
  const file = join(temporaryDir('deny-list-'), 'revoked.json');
  ensureDenyList(file);
  let now = T0;
  const list = createFileRevocations(file, () => now);
  addToDenyList(file, 'stolen', T0);
  addToDenyList(file, 'rerolled', T0 + 86_400_000);
  assert.equal(await list.isRevoked('stolen'), true);
  assert.equal(await list.isRevoked('rerolled'), false, 'in its grace period');
  assert.equal(await list.isRevoked('other'), false);
  now = T0 + 86_400_000;
  assert.equal(await list.isRevoked('rerolled'), true, 'refused from the end of its grace');
});

test('the earliest date wins: a revocation cuts a grace short, a later one never extends it; other fields are kept', () => {
  const file = join(temporaryDir('deny-list-'), 'revoked.json');
  writeFileSync(file, JSON.stringify({ revoked: { old: '2026-01-01T00:00:00.000Z' }, note: 'kept' }));
  assert.deepEqual(addToDenyList(file, 'k', T0 + 3_600_000), { refusedFrom: '2026-11-28T13:00:00.000Z', already: false });
  assert.deepEqual(addToDenyList(file, 'k', T0 + 7_200_000), { refusedFrom: '2026-11-28T13:00:00.000Z', already: true });
  assert.deepEqual(addToDenyList(file, 'k', T0), { refusedFrom: '2026-11-28T12:00:00.000Z', already: false });
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), {
    revoked: { old: '2026-01-01T00:00:00.000Z', k: '2026-11-28T12:00:00.000Z' },
    note: 'kept',
  });
});

test('a date that does not parse refuses its key from the start of time; a file that is no deny-list is refused', () => {
  const file = join(temporaryDir('deny-list-'), 'revoked.json');
  writeFileSync(file, JSON.stringify({ revoked: { a: 'yesterday', b: 7 } }));
  assert.deepEqual(
    [...readDenyList(file)],
    [
      ['a', 0],
      ['b', 0],
    ],
  );
  writeFileSync(file, JSON.stringify({ revoked: ['a'] }));
  assert.throws(() => readDenyList(file), /is not a deny-list: expected \{"revoked"/);
  writeFileSync(file, '{"revoked": ');
  assert.throws(() => readDenyList(file), /is not valid JSON/);
});
