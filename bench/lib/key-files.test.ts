import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeKeyRotation } from './key-files.js';
import { runWrk, wrkArgs, wrkSkipReason } from './wrk.js';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'key-files-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a rotation writes the keys and the order one a line, and sends them in that order, cycling', (t) => {
  const dir = tempDir(t);
  const rotation = writeKeyRotation(dir, 'uniform', ['k0', 'k1', 'k2'], Uint32Array.from([2, 0, 2, 1]));
  assert.equal(readFileSync(rotation.keysFile, 'utf8'), 'k0\nk1\nk2\n');
  assert.equal(readFileSync(rotation.orderFile, 'utf8'), '2\n0\n2\n1\n');
  assert.match(readFileSync(rotation.scriptFile, 'utf8'), /function request\(\)/);
  assert.deepEqual([rotation.accounts, rotation.draws], [3, 4]);
  assert.deepEqual(
    Array.from({ length: 6 }, () => rotation.next()),
    ['Bearer k2', 'Bearer k0', 'Bearer k2', 'Bearer k1', 'Bearer k2', 'Bearer k0'],
  );
});

test('a rotation refuses an order naming a key it lacks, no keys, and keys with white space', (t) => {
  const dir = tempDir(t);
  assert.throws(() => writeKeyRotation(dir, 'x', ['k0'], Uint32Array.from([1])), /names key 1 of 1/);
  assert.throws(() => writeKeyRotation(dir, 'x', [], Uint32Array.from([0])), /needs keys and an order/);
  assert.throws(() => writeKeyRotation(dir, 'x', ['a b'], Uint32Array.from([0])), /white space/);
});

test("wrk's arguments put the script before the URL and its files after --", () => {
  const keys = { scriptFile: '/d/rotate-keys.lua', keysFile: '/d/u.keys', orderFile: '/d/u.order' };
  assert.deepEqual(wrkArgs({ url: 'http://h/p', connections: 5, seconds: 2, keys }), [
    '-t1',
    '-c5',
    '-d2s',
    '--latency',
    '-s',
    '/d/rotate-keys.lua',
    'http://h/p',
    '--',
    '/d/u.keys',
    '/d/u.order',
  ]);
});

test('wrk through the script sends each request the next key of the order', { skip: wrkSkipReason() }, async (t) => {
  const dir = tempDir(t);
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers.authorization ?? '');
    response.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const rotation = writeKeyRotation(dir, 'zipf', ['a', 'b', 'c'], Uint32Array.from([1, 1, 0, 2, 1]));
  const { port } = server.address() as AddressInfo;
  const result = await runWrk({ url: `http://127.0.0.1:${port}/`, connections: 1, seconds: 1, keys: rotation });
  assert.ok(result.requests >= 10, `${result.requests} requests`);
  // The order from some offset (wrk may draw one request it does not send as it connects), cycling.
  const order = ['b', 'b', 'a', 'c', 'b'];
  const offsets = order.map((_, offset) => offset).filter((offset) => seen.slice(0, 10).every((header, i) => header === `Bearer ${order[(offset + i) % 5]}`));
  assert.ok(offsets.length > 0, `not the order: ${seen.slice(0, 10).join(', ')}`);
});
