import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { fileStamp } from './file-stamp.js';

test('a file is looked at once per event-loop turn, and afresh in the next turn', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'stamp-'));
  const file = join(dir, 'list.json');
  const look = fileStamp(file);
  assert.equal(look(), 'missing');
  writeFileSync(file, '{"a":1}');
  assert.equal(look(), 'missing', 'within the turn of the first look, its answer stands');
  await nextTurn();
  const first = look();
  assert.notEqual(first, 'missing');
  // Replaced the way the keys CLI writes: a new file renamed over the old one.
  writeFileSync(join(dir, 'next.json'), '{"a":1,"b":2}');
  renameSync(join(dir, 'next.json'), file);
  await nextTurn();
  const second = look();
  assert.notEqual(second, first);
  rmSync(file);
  await nextTurn();
  assert.equal(look(), 'missing');
  rmSync(dir, { recursive: true, force: true });
});
