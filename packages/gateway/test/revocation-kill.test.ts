import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type RedisServer, redisSkipReason, startRedis, temporaryDir } from '@animal-store/testkit';
import {
  keysCli as keys,
  PROXY_TEST_PATHS,
  type RecordingUpstream,
  revokeThenKill,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  writeDocument,
} from './support/index.js';

// Issue "hold the guarantees", 3: a revocation, then Redis dying within 2 ms, before the gateways'
// 5 s copy of the deny-list was refreshed. Both instances must refuse the key (fail closed).
for (const withFile of [true, false]) {
  describe(`a revoke then a Redis kill within 2 ms (${withFile ? 'REVOCATIONS_FILE and Redis' : 'Redis only'})`, { skip: redisSkipReason() }, () => {
    let redis: RedisServer;
    let upstream: RecordingUpstream;
    let gateways: RunningGateway[];
    let env: Record<string, string>;

    before(async () => {
      redis = await startRedis();
      upstream = await startRecordingUpstream();
      env = { KEYS_DIR: join(temporaryDir('gw-cli-'), 'keys'), REDIS_URL: redis.url };
      assert.equal((await keys(env, 'init')).status, 0);
      const gatewayEnv = {
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
        JWKS_FILE: join(env.KEYS_DIR as string, 'public', 'jwks.json'),
        ...(withFile ? { REVOCATIONS_FILE: join(env.KEYS_DIR as string, 'public', 'revoked.json') } : {}),
        REDIS_URL: redis.url,
        RATE_LIMITS: 'on',
      };
      gateways = [await startGateway(gatewayEnv), await startGateway(gatewayEnv)];
    });
    after(async () => {
      for (const gateway of gateways ?? []) await gateway.close();
      await upstream?.close();
      await redis?.close();
    });

    const call = (gateway: RunningGateway, token: string) =>
      fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } }).then(async (res) => (await res.arrayBuffer(), res.status));

    test('both instances answer 401 for the revoked key, 200 for another key of the same account', async () => {
      const issued = await keys(env, 'issue', '--plan', 'pro', '--sub', 'acme');
      const other = await keys(env, 'issue', '--plan', 'pro', '--sub', 'acme');
      for (const gateway of gateways) {
        assert.equal(await call(gateway, issued.stdout), 200);
        assert.equal(await call(gateway, other.stdout), 200);
      }
      const listed = JSON.parse((await keys(env, 'list', '--json')).stdout) as { jti: string }[];
      const jti = (listed[0] as { jti: string }).jti;
      // The copies were just read (each instance's copy is refreshed every 5 s): give them one more
      // refresh before the revocation, so the revocation falls inside a refresh interval.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const { status, killedAfterMs, stderr } = await revokeThenKill(env, jti, redis);
      try {
        assert.equal(status, 0, stderr);
        assert.ok(killedAfterMs < 2, `Redis was killed ${killedAfterMs} ms after the CLI exited`);
        for (let i = 0; i < 3; i++) {
          for (const gateway of gateways) {
            assert.equal(await call(gateway, issued.stdout), 401, 'the revoked key, with Redis dead');
            assert.equal(await call(gateway, other.stdout), 200, 'another key, from the local policy');
          }
        }
      } finally {
        await redis.restart();
      }
    });
  });
}
