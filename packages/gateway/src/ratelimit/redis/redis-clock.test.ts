import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClockOffset } from './redis-clock.js';

// A reply read late makes Redis's clock look behind (its lower bound), never ahead; a reply can
// not have been made before its call was sent (its upper bound).

test('a good reading is kept however long the replies after it are read late', () => {
  const offset = createClockOffset();
  offset.observe(-2, 0); // sent, and read 2 ms later: Redis's clock is 0 to 2 ms behind
  // A burst: each reply read 600 ms after its call was sent.
  for (let i = 0; i < 1000; i++) offset.observe(-600, 0);
  assert.equal(offset.get(), -2);
});

test('a reading that proves the clock moved back replaces the estimate', () => {
  const offset = createClockOffset();
  offset.observe(-2, 0);
  // Redis failed over to a host whose clock is 5 s behind: its reply was made before the call was sent, by our estimate.
  offset.observe(-5003, -5000);
  assert.equal(offset.get(), -5003);
  // A clock that moves forward is followed at once.
  offset.observe(1000, 1001);
  assert.equal(offset.get(), 1000);
});

test('nothing observed: no estimate', () => {
  assert.equal(createClockOffset().get(), undefined);
});
