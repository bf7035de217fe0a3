import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { test } from 'node:test';
import { CHANNELS, publishKeyCacheLookup, type KeyCacheLookupEvent } from './index.js';

test('a publisher is active exactly while its channel has a subscriber, and then delivers', () => {
  // Publication points build their event only when `active`: it must say so as soon as anyone listens.
  assert.equal(publishKeyCacheLookup.active, false);
  const seen: KeyCacheLookupEvent[] = [];
  const listener = (event: unknown) => void seen.push(event as KeyCacheLookupEvent);
  subscribe(CHANNELS.keyCacheLookup, listener);
  try {
    assert.equal(publishKeyCacheLookup.active, true);
    publishKeyCacheLookup({ result: 'hit' });
    assert.deepEqual(seen, [{ result: 'hit' }]);
  } finally {
    unsubscribe(CHANNELS.keyCacheLookup, listener);
  }
  assert.equal(publishKeyCacheLookup.active, false);
  publishKeyCacheLookup({ result: 'miss' });
  assert.deepEqual(seen, [{ result: 'hit' }], 'nobody listens: nothing delivered');
});
