import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { redisSkipReason, startRedis, temporaryDir, type RedisServer, waitForReady } from '@animal-store/testkit';
import { keysCli as keys, PROXY_TEST_PATHS, requestOnFreshConnection, startGatewayProcess, startRecordingUpstream, writeDocument } from './support/index.js';

// Issue 30, point 3: a revocation reaches every worker by the next request, as it reaches every
// instance: each worker watches the deny-list file, and reads Redis's, itself.

for (const where of ['REVOCATIONS_FILE', 'Redis'] as const) {
  describe(`WORKERS=2, a key revoked with the keys CLI (${where})`, { skip: where === 'Redis' ? redisSkipReason() : false }, () => {
    test('is refused by every worker from the next request on', async () => {
      const redis: RedisServer | undefined = where === 'Redis' ? await startRedis() : undefined;
      const upstream = await startRecordingUpstream();
      const cli = { KEYS_DIR: join(temporaryDir('gw-cli-'), 'keys'), ...(redis === undefined ? {} : { REDIS_URL: redis.url }) };
      assert.equal((await keys(cli, 'init')).status, 0);
      const gateway = await startGatewayProcess({
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
        JWKS_FILE: join(cli.KEYS_DIR, 'public', 'jwks.json'),
        // With Redis, Redis alone: the keyring's file would refuse the key too.
        ...(redis === undefined ? { REVOCATIONS_FILE: join(cli.KEYS_DIR, 'public', 'revoked.json') } : { REDIS_URL: redis.url, REVOCATIONS_FILE: 'none' }),
      });
      try {
        await waitForReady(gateway.url, 15_000);
        const issued = await keys(cli, 'issue', '--plan', 'pro', '--sub', 'acme');
        assert.equal(issued.status, 0, issued.stderr);
        const call = () => requestOnFreshConnection(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${issued.stdout}` } });
        for (let i = 0; i < 6; i++) assert.equal((await call()).status, 200);

        const [{ jti }] = JSON.parse((await keys(cli, 'list', '--json')).stdout) as [{ jti: string }];
        const from = gateway.records().length;
        const revoked = await keys(cli, 'revoke', jti);
        assert.equal(revoked.status, 0, revoked.stderr);
        const statuses = [];
        for (let i = 0; i < 20; i++) statuses.push((await call()).status);
        assert.deepEqual(statuses, Array(20).fill(401));
        // Both workers answered some of them.
        for (const pid of gateway.workerPids) await gateway.waitForRecord((record) => record.status === 401 && record.pid === pid, 5000, from);
      } finally {
        await gateway.stop();
        await upstream.close();
        await redis?.close();
      }
    });
  });
}
