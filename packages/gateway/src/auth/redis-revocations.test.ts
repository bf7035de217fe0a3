import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RedisClient } from '../redis/index.js';
import { createRedisRevocations } from './redis-revocations.js';

/**
 * The part of a Redis client the deny-list's copy uses, with the order of its two connections in
 * the test's hands: the subscriber may be in place before the client it reads with is connected,
 * and a read made meanwhile fails, as ioredis fails it without an offline queue.
 */
function connectionsInOrder() {
  let connected = false;
  let ready: (() => void) | undefined;
  let subscribed: (() => void) | undefined;
  const client = {
    sMembers: async () => {
      if (!connected) throw new Error('Stream isn\u2019t writeable and enableOfflineQueue options is false');
      return [];
    },
    sMisMember: async (_key: string, members: readonly string[]) => members.map(() => false),
    publish: async () => 1,
    subscribe: (_channel: string, _listener: (message: string) => void, onSubscribed?: () => void) => {
      subscribed = onSubscribed;
    },
    onReady: (listener: () => void) => {
      ready = listener;
    },
  } as unknown as RedisClient;
  return {
    client,
    subscriberInPlace: () => subscribed?.(),
    clientConnected: () => {
      connected = true;
      ready?.();
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('the copy vouches for a key once a whole read follows the subscription, also when the first read failed because the client was still connecting', async () => {
  const redis = connectionsInOrder();
  const copy = createRedisRevocations(redis.client, { key: 'revoked', channel: 'revoked:new', acks: 'revoked:acks', snapshotEveryMs: 3_600_000 });
  try {
    redis.subscriberInPlace();
    await settle();
    assert.equal(copy.knownNotRevoked('k'), false, 'no whole read yet');
    redis.clientConnected();
    await settle();
    assert.equal(copy.copied(), true);
    assert.equal(copy.knownNotRevoked('k'), true, 'the read made on connecting followed the subscription');
  } finally {
    copy.close();
  }
});

test('a read begun before the subscription was in place does not make the copy sure', async () => {
  const redis = connectionsInOrder();
  const copy = createRedisRevocations(redis.client, { key: 'revoked', channel: 'revoked:new', acks: 'revoked:acks', snapshotEveryMs: 3_600_000 });
  try {
    redis.clientConnected();
    await settle();
    assert.equal(copy.knownNotRevoked('k'), false, 'read, but not listening: a revocation meanwhile would be missed');
  } finally {
    copy.close();
  }
});
