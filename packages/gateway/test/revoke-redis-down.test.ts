import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, redisSkipReason, startRedis, temporaryDir, type RedisServer } from '@animal-store/testkit';
import { AdminError } from '../src/admin/index.js';
import { createRevoker } from '../src/admin/revoker.js';
import { createRedisClient, type RedisClient } from '../src/redis/index.js';
import { keysCli as keys } from './support/index.js';

// Issue 39, point 3.9: a revocation Redis did not take showed the Redis client's own words
// ("Stream isn't writeable and enableOfflineQueue options is false"), not what happened.

const CLIENT_WORDS = /Stream isn't writeable|enableOfflineQueue|Connection is closed/;

describe('a revocation Redis does not take says so in the product’s words', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  let client: RedisClient;
  before(async () => {
    redis = await startRedis();
    client = createRedisClient(redis.url, { commandTimeoutMs: 1000 });
    await client.ping().catch(() => undefined);
  });
  after(async () => {
    await client?.close();
    await redis?.close();
  });

  test('the admin API: revoked in the file, not in Redis, which is not reachable', async () => {
    const file = join(temporaryDir('gw-revoke-down-'), 'revoked.json');
    const revoker = createRevoker({ keysChecked: true, file, readFiles: [file], redis: { client, prefix: 'gw', cluster: false }, now: Date.now });
    await redis.stop();
    const failure = await revoker.revoke('k1').then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(failure instanceof AdminError, String(failure));
    assert.equal(failure.code, 'revocation_failed');
    assert.doesNotMatch(failure.message, CLIENT_WORDS);
    assert.match(failure.message, /^Revoked in \S+revoked\.json, but not in Redis \(Redis is not reachable: no connection to it\): /);
  });
});

test('keys revoke: a REDIS_URL nobody answers at is named as such, not in the Redis client’s words', async () => {
  const env = { KEYS_DIR: join(temporaryDir('gw-revoke-dead-'), 'keys') };
  assert.equal((await keys(env, 'init')).status, 0);
  await keys(env, 'issue', '--plan', 'pro', '--sub', 'acme', '--ttl', '1d');
  const jti = (JSON.parse((await keys(env, 'list', '--json')).stdout) as { jti: string }[])[0]?.jti as string;
  const url = `redis://127.0.0.1:${await freePort()}`;
  const dead = await keys({ ...env, REDIS_URL: url }, 'revoke', jti);
  assert.equal(dead.status, 1);
  assert.doesNotMatch(dead.stderr, CLIENT_WORDS);
  const host = new URL(url).host.replaceAll('.', '\\.');
  assert.match(dead.stderr, new RegExp(`but NOT in Redis \\(Redis at ${host} is not reachable: no connection to it \\(5 s\\)\\)`));
});
