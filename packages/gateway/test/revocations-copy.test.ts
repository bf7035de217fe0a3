import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, startRedis, type RedisServer, waitForReady } from '@animal-store/testkit';
import { createRedisRevocations } from '../src/auth/index.js';
import { createRedisClient, redisKeyNames } from '../src/redis/index.js';
import { createTestKeyring, PROXY_TEST_PATHS, startGateway, startRecordingUpstream, writeDocument } from './support/index.js';

const SIZE = 200_000;

describe('the local copy of a very large deny-list', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  const key = redisKeyNames('gw').revoked;

  before(async () => {
    redis = await startRedis();
    const filler = new Redis(redis.url);
    for (let start = 0; start < SIZE; start += 10_000) {
      await filler.sadd(key, ...Array.from({ length: 10_000 }, (_, i) => `revoked-key-id-${String(start + i).padStart(6, '0')}`));
    }
    assert.equal(await filler.scard(key), SIZE);
    await filler.quit();
  });
  after(() => redis?.close());

  test(`${SIZE.toLocaleString('en')} revoked ids load within the default 50 ms command budget, and answer while Redis is down`, async () => {
    const client = createRedisClient(redis.url, { commandTimeoutMs: 50 });
    let copied: (size: number) => void = () => {};
    const copy = new Promise<number>((resolve) => (copied = resolve));
    const revocations = createRedisRevocations(client, { key, onCopied: (size) => copied(size) });
    try {
      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no whole copy in 20 s')), 20_000).unref());
      assert.equal(await Promise.race([copy, timeout]), SIZE);
      await redis.stop();
      assert.equal(await revocations.isRevoked('revoked-key-id-199999'), true);
      assert.equal(await revocations.isRevoked('revoked-key-id-000000'), true);
      assert.equal(await revocations.isRevoked('a-key-nobody-revoked'), false);
    } finally {
      revocations.close();
      await client.close();
    }
  });
});

describe('readiness waits for the deny-list copy', { skip: redisSkipReason() }, () => {
  test('a gateway started while Redis is down is not ready until its copy is read; from then on an outage is answered from it', async () => {
    const redis = await startRedis();
    const upstream = await startRecordingUpstream();
    const keyring = await createTestKeyring();
    await redis.stop();
    const gateway = await startGateway(
      {
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
        JWKS_FILE: keyring.files.jwks,
        REDIS_URL: redis.url,
        REDIS_COMMAND_TIMEOUT_MS: '200',
      },
      undefined,
      undefined,
      { waitForRedis: false },
    );
    try {
      const down = await fetch(`${gateway.url}/readyz`);
      assert.equal(down.status, 503);
      assert.match(((await down.json()) as { message: string }).message, /revocations copy/);
      await redis.restart();
      await waitForReady(gateway.url);
      await redis.stop();
      const { token } = await keyring.issue();
      assert.equal((await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
    } finally {
      await gateway.close();
      await upstream.close();
      await redis.close();
    }
  });
});
