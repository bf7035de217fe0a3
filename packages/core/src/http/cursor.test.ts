import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeCursor, encodeCursor } from './cursor.js';

test('a cursor round-trips every id up to 2^53-1', () => {
  for (const id of [1, 42, 1_000_000, Number.MAX_SAFE_INTEGER]) assert.equal(decodeCursor(encodeCursor(id)), id);
});

test('anything this service did not issue decodes to undefined', () => {
  const cursor = encodeCursor(42);
  const forged = [
    '',
    `${cursor}=`,
    `${cursor}A`,
    `${cursor.slice(0, -1)}J`, // same bytes, non-canonical padding bits
    Buffer.from('after:042').toString('base64url'),
    Buffer.from('after:0').toString('base64url'),
    Buffer.from('after:9007199254740992').toString('base64url'),
    Buffer.from('before:42').toString('base64url'),
    Buffer.from('after:42 ').toString('base64url'),
    'a'.repeat(33),
  ];
  for (const bad of forged) assert.equal(decodeCursor(bad), undefined, bad);
});
