import assert from 'node:assert/strict';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { temporaryDir } from '@animal-store/testkit';
import { join } from 'node:path';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { fileStamp, requestArrived } from './file-stamp.js';

test('within a request turn the first look stands; the next turn looks again', async () => {
  const dir = temporaryDir('stamp-');
  const file = join(dir, 'list.json');
  const look = fileStamp(file);
  requestArrived();
  assert.equal(look(), 'missing');
  writeFileSync(file, '{"a":1}');
  assert.equal(look(), 'missing', 'requests of the same turn share the first look');
  await nextTurn();
  requestArrived();
  const first = look();
  assert.notEqual(first, 'missing');
  // Replaced the way the keys CLI writes: a new file renamed over the old one.
  writeFileSync(join(dir, 'next.json'), '{"a":1,"b":2}');
  renameSync(join(dir, 'next.json'), file);
  await nextTurn();
  requestArrived();
  assert.notEqual(look(), first);
  rmSync(dir, { recursive: true, force: true });
});

test('a look taken outside a request turn (a timer, say) is not reused by the next request', async () => {
  const dir = temporaryDir('stamp-');
  const file = join(dir, 'list.json');
  const look = fileStamp(file);
  await nextTurn();
  assert.equal(look(), 'missing');
  writeFileSync(file, '{"a":1}');
  assert.notEqual(look(), 'missing', 'no request turn is open: every look is fresh');
  rmSync(file);
  requestArrived();
  assert.equal(look(), 'missing', 'the first request of a turn looks again');
  rmSync(dir, { recursive: true, force: true });
});
