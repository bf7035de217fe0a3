import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { temporaryDir } from '@animal-store/testkit';
import { CHANNELS, type FileReloadFailedEvent } from '../events/index.js';
import { watchFile } from './watched-file.js';

/** Writes `text` the way the keys CLI does: a new file renamed over the old one. */
function replace(file: string, text: string): void {
  writeFileSync(`${file}.next`, text);
  renameSync(`${file}.next`, file);
}

test('a changed file is read again; an unreadable or missing one keeps the last good content and is published once', async () => {
  const dir = temporaryDir('watch-');
  const file = join(dir, 'list.json');
  writeFileSync(file, '{"n":1}');
  const failures: FileReloadFailedEvent[] = [];
  const listener = (event: unknown) => failures.push(event as FileReloadFailedEvent);
  subscribe(CHANNELS.fileReloadFailed, listener);
  try {
    const watched = watchFile(file, (path) => JSON.parse(readFileSync(path, 'utf8')) as { n: number }, { setting: 'TEST_FILE' });
    assert.deepEqual([watched.current().n, watched.version()], [1, 0]);
    replace(file, '{"n":2}');
    await nextTurn();
    assert.deepEqual([watched.current().n, watched.version()], [2, 1]);
    replace(file, '{"n":'); // caught mid-write
    await nextTurn();
    assert.equal(watched.current().n, 2);
    assert.equal(watched.current().n, 2);
    assert.equal(failures.length, 1, 'one event per version of the file, not per look');
    assert.equal(failures[0]?.setting, 'TEST_FILE');
    assert.equal(failures[0]?.file, file);
    rmSync(file);
    await nextTurn();
    assert.equal(watched.current().n, 2, 'a removed file keeps the last content');
    replace(file, '{"n":3}');
    await nextTurn();
    assert.deepEqual([watched.current().n, watched.version()], [3, 2]);
    assert.equal(failures.length, 1);
  } finally {
    unsubscribe(CHANNELS.fileReloadFailed, listener);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the first read throws as the reader does: a wrong path stops the start', () => {
  assert.throws(() => watchFile('/nonexistent/list.json', (path) => readFileSync(path, 'utf8'), { setting: 'TEST_FILE' }), /ENOENT/);
});

test('with a minimum interval, the file is looked at no more often than that on the given clock', async () => {
  const dir = temporaryDir('watch-');
  const file = join(dir, 'keys.json');
  writeFileSync(file, '1');
  let now = 0;
  const watched = watchFile(file, (path) => Number(readFileSync(path, 'utf8')), { setting: 'TEST_FILE', minIntervalMs: 1000, now: () => now });
  replace(file, '2');
  await nextTurn();
  now = 999;
  assert.equal(watched.current(), 1, 'not looked at yet');
  now = 1000;
  assert.equal(watched.current(), 2);
  rmSync(dir, { recursive: true, force: true });
});
