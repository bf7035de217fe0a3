import assert from 'node:assert/strict';
import { test } from 'node:test';
import { minuteAndDay } from '../policy.js';
import { isOrdinary, LEASE_OF_LIMIT } from './lease-entry.js';

test('an account whose plan has a window under 1,024 asks for no lease: the script would grant none, and the request keeps its common path', () => {
  const request = (minute: number, day: number) => ({ subject: 'acme', keyId: 'k1', policy: minuteAndDay('plan', minute, day) });
  assert.equal(isOrdinary(request(1_000, 100_000), undefined), false, '1,000 a minute');
  assert.equal(isOrdinary(request(100_000, 1_000), undefined), false, '1,000 a day');
  assert.equal(isOrdinary(request(LEASE_OF_LIMIT, LEASE_OF_LIMIT), undefined), true, 'every window at 1,024');
  assert.equal(isOrdinary(request(2_048, 1_000_000), undefined), true);
  assert.equal(isOrdinary({ ...request(2_048, 1_000_000), peek: true }, undefined), false, 'a peek, whatever its plan');
});
