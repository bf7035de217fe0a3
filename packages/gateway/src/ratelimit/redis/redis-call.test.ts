import assert from 'node:assert/strict';
import { test } from 'node:test';
import { packedRequests } from './redis-call.js';

test('a short form packs as key index, checks, policy, cost, key id (little-endian)', () => {
  const bytes = packedRequests([-3, 'ké', '1', 2, 1.5], 1);
  assert.equal(bytes.readInt16LE(0), -3);
  assert.equal(bytes.readUInt8(2), 1);
  assert.equal(bytes.readUInt16LE(3), 2);
  assert.equal(bytes.readDoubleLE(5), 1.5);
  assert.equal(bytes.readUInt16LE(13), 3, 'the id in UTF-8 bytes');
  assert.equal(bytes.subarray(15).toString('utf8'), 'ké');
});

test('a full form goes on with strikes, mode, shadow, its layers and its lease terms', () => {
  // key 0 (a revocation check alone), no key id, strikes 2, peek, shadow, one layer, then a lease.
  const bytes = packedRequests([0, '', '0', 1, 2, '1', 4, '1', 1, 5, 3, 7, 8, 1_800_000_000_123], 1);
  assert.equal(bytes.length, 15 + 11 + 4 + 24);
  assert.deepEqual([bytes.readInt16LE(0), bytes.readUInt8(2), bytes.readUInt16LE(3), bytes.readDoubleLE(5), bytes.readUInt16LE(13)], [0, 0, 1, 4, 0]);
  assert.deepEqual([bytes.readDoubleLE(15), bytes.readUInt8(23), bytes.readUInt8(24), bytes.readUInt8(25)], [2, 1, 1, 1]);
  assert.deepEqual([bytes.readInt16LE(26), bytes.readUInt16LE(28)], [5, 3]);
  assert.deepEqual([bytes.readDoubleLE(30), bytes.readDoubleLE(38), bytes.readDoubleLE(46)], [7, 8, 1_800_000_000_123]);
});

test('requests follow one another, whatever their forms', () => {
  const bytes = packedRequests([-1, 'a', '0', 1, 1, 2, 'b', '1', 1, 0, '0', 1, '0', 0, 0, 0, 0, -1, 'c', '0', 1, 1], 3);
  assert.equal(bytes.length, 16 + (15 + 1 + 11 + 24) + 16);
  assert.equal(bytes.readInt16LE(16), 2);
  assert.equal(bytes.readInt16LE(16 + 51), -1);
  assert.equal(bytes.subarray(16 + 51 + 15).toString(), 'c');
});

test('what the bytes cannot hold throws, so the call is not sent', () => {
  assert.throws(() => packedRequests([-40_000, 'a', '0', 1, 1], 1), RangeError);
  assert.throws(() => packedRequests([-1, 'a'.repeat(70_000), '0', 1, 1], 1), RangeError);
  assert.throws(() => packedRequests([1, 'a', '0', 1, 0, '0', 1, '0', 300, ...new Array(600).fill(1), 0, 0, 0], 1), RangeError);
});
