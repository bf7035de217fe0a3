import assert from 'node:assert/strict';
import { test } from 'node:test';
import { packedRequests } from './redis-call.js';

test('a short form packs as key index, checks, policy, cost, key id (little-endian)', () => {
  const bytes = packedRequests([-3, 'ké', '1', 2, 1.5], 1);
  assert.equal(bytes.readInt32LE(0), -3);
  assert.equal(bytes.readUInt8(4), 1);
  assert.equal(bytes.readUInt32LE(5), 2);
  assert.equal(bytes.readDoubleLE(9), 1.5);
  assert.equal(bytes.readUInt16LE(17), 3, 'the id in UTF-8 bytes');
  assert.equal(bytes.subarray(19).toString('utf8'), 'ké');
});

test('a full form goes on with strikes, mode, shadow, its layers and its lease terms', () => {
  // key 0 (a revocation check alone), no key id, strikes 2, peek, shadow, one layer, then a lease.
  const bytes = packedRequests([0, '', '0', 1, 2, '1', 4, '1', 1, 5, 3, 7, 8, 1_800_000_000_123], 1);
  assert.equal(bytes.length, 19 + 14 + 8 + 24);
  assert.deepEqual([bytes.readInt32LE(0), bytes.readUInt8(4), bytes.readUInt32LE(5), bytes.readDoubleLE(9), bytes.readUInt16LE(17)], [0, 0, 1, 4, 0]);
  assert.deepEqual([bytes.readDoubleLE(19), bytes.readUInt8(27), bytes.readUInt8(28), bytes.readUInt32LE(29)], [2, 1, 1, 1]);
  assert.deepEqual([bytes.readInt32LE(33), bytes.readUInt32LE(37)], [5, 3]);
  assert.deepEqual([bytes.readDoubleLE(41), bytes.readDoubleLE(49), bytes.readDoubleLE(57)], [7, 8, 1_800_000_000_123]);
});

test('requests follow one another, whatever their forms', () => {
  const bytes = packedRequests([-1, 'a', '0', 1, 1, 2, 'b', '1', 1, 0, '0', 1, '0', 0, 0, 0, 0, -1, 'c', '0', 1, 1], 3);
  assert.equal(bytes.length, 20 + (19 + 1 + 14 + 24) + 20);
  assert.equal(bytes.readInt32LE(20), 2);
  assert.equal(bytes.readInt32LE(20 + 58), -1);
  assert.equal(bytes.subarray(20 + 58 + 19).toString(), 'c');
});

test('thousands of layers (the ceilings a peek carries) and their keys fit', () => {
  const layers = Array.from({ length: 3000 }, (_, l) => [40_000 + l, 3 + l]).flat();
  const bytes = packedRequests([1, 'k', '0', 2, 0, '1', 1, '0', 3000, ...layers, 0, 0, 0], 1);
  assert.equal(bytes.readUInt32LE(20 + 10), 3000);
  assert.deepEqual([bytes.readInt32LE(20 + 14 + 8 * 2999), bytes.readUInt32LE(20 + 18 + 8 * 2999)], [42_999, 3002]);
});

test('what the bytes cannot hold throws, so the call is not sent', () => {
  assert.throws(() => packedRequests([-3_000_000_000, 'a', '0', 1, 1], 1), RangeError);
  assert.throws(() => packedRequests([-1, 'a'.repeat(70_000), '0', 1, 1], 1), RangeError);
});
