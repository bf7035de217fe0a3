import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, type RedisServer, redisSkipReason, startRedis, temporaryDir, waitForReady } from '@animal-store/testkit';
import {
  keysCli as keys,
  PROXY_TEST_PATHS,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  writeDocument,
} from './support/index.js';

// With limits on too: a revoked key is refused before the limiter, and with Redis down under the
// `local` policy the local copy still refuses it while good keys are limited in process.
for (const limits of ['off', 'on'] as const)
  describe(`revocation shared through Redis, driven by the keys CLI (RATE_LIMITS=${limits})`, { skip: redisSkipReason() }, () => {
    let redis: RedisServer;
    let upstream: RecordingUpstream;
    let gateways: RunningGateway[];
    let env: Record<string, string>;
    let gatewayEnv: Record<string, string>;

    before(async () => {
      redis = await startRedis();
      upstream = await startRecordingUpstream();
      env = { KEYS_DIR: join(temporaryDir('gw-cli-'), 'keys'), REDIS_URL: redis.url };
      assert.equal((await keys(env, 'init')).status, 0);
      gatewayEnv = {
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
        JWKS_FILE: join(env.KEYS_DIR as string, 'public', 'jwks.json'),
        REDIS_URL: redis.url,
        REDIS_COMMAND_TIMEOUT_MS: '100',
        RATE_LIMITS: limits,
      };
      gateways = [await startGateway(gatewayEnv), await startGateway(gatewayEnv)];
    });
    after(async () => {
      for (const gateway of gateways ?? []) await gateway.close();
      await upstream?.close();
      await redis?.close();
    });

    const call = (gateway: RunningGateway, token: string) =>
      fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } }).then((res) => res.status);

    test('init → issue → the key works on both instances → revoke → 401 on both at the next request', async () => {
      const issued = await keys(env, 'issue', '--plan', 'pro', '--sub', 'acme', '--ttl', '30d');
      assert.equal(issued.status, 0, issued.stderr);
      assert.match(issued.stdout, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/, 'stdout is the key and nothing else');
      for (const gateway of gateways) assert.equal(await call(gateway, issued.stdout), 200);

      const listed = JSON.parse((await keys(env, 'list', '--json')).stdout) as { jti: string; sub: string; plan: string; revokedAt?: string }[];
      assert.equal(listed.length, 1);
      assert.equal(JSON.stringify(listed).includes(issued.stdout), false, 'list never shows a key');
      const jti = listed[0]?.jti as string;

      const revoked = await keys(env, 'revoke', jti);
      assert.equal(revoked.status, 0, revoked.stderr);
      for (const gateway of gateways) assert.equal(await call(gateway, issued.stdout), 401);
      assert.match((await keys(env, 'list')).stdout, new RegExp(`${jti}\\s+acme\\s+pro\\s+\\S+\\s+yes`));
    });

    test('a gateway that starts while Redis is down has no copy of the deny-list: 503, never a 200, until Redis answers', async () => {
      const issued = (await keys(env, 'issue', '--plan', 'pro', '--sub', 'late-start')).stdout;
      await redis.stop();
      let late: RunningGateway | undefined;
      try {
        late = await startGateway({ ...gatewayEnv, RATE_LIMIT_ON_REDIS_FAILURE: 'open' }, undefined, undefined, { waitForRedis: false });
        const res = await fetch(`${late.url}/v1/echo`, { headers: { authorization: `Bearer ${issued}` } });
        assert.equal(res.status, 503);
        assert.equal(((await res.json()) as { code: string }).code, 'auth_unavailable');
        assert.equal(res.headers.get('retry-after'), '1');
      } finally {
        await redis.restart();
      }
      try {
        const deadline = Date.now() + 10_000;
        while ((await call(late as RunningGateway, issued)) !== 200) {
          assert.ok(Date.now() < deadline, 'the gateway never recovered once Redis was back');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        await late?.close();
      }
      // The other instances reconnect with back-off; the next tests need them connected again.
      for (const gateway of gateways) await waitForReady(gateway.url);
    });

    test('the CLI refuses bad arguments with a clear message and a non-zero exit', async () => {
      const cases = [
        [],
        ['bogus'],
        ['issue', '--plan', 'gold', '--sub', 'x'],
        ['issue', '--plan', 'pro'],
        ['issue', '--plan', 'pro', '--sub', 'x', '--ttl', 'soon'],
        ['issue', '--plan', 'pro', '--sub', 'x', '--minute', '0'],
        ['issue', '--plan', 'pro', '--sub', 'x', '--ttl', '300000y'],
        ['issue', '--plan', 'pro', '--sub', 'x', '--bogus'],
        ['revoke'],
        ['revoke', 'never-issued'],
        ['init'],
      ];
      for (const args of cases) {
        const run = await keys(env, ...args);
        assert.notEqual(run.status, 0, args.join(' '));
        assert.match(run.stderr, /^keys: \S/, args.join(' '));
        assert.equal(run.stdout, '');
      }
      // Key ids and kids are base64url: one may start with "-", and is still an id, not an option.
      const dashed = await keys(env, 'revoke', '-never-issued');
      assert.equal(dashed.status, 1, dashed.stderr);
      // Issue 29: the id is no longer echoed (an argument may be a secret part of a key).
      assert.match(dashed.stderr, /no key with that id was issued/);
      assert.equal(dashed.stderr.includes('never-issued'), false);
    });

    test('while Redis is down, keys keep working from the local copy and a key seen revoked stays revoked', async () => {
      const good = (await keys(env, 'issue', '--plan', 'free', '--sub', 'globex')).stdout;
      const bad = (await keys(env, 'issue', '--plan', 'free', '--sub', 'initech')).stdout;
      const listed = await keys(env, 'list', '--json');
      const badId = (JSON.parse(listed.stdout) as { jti: string; sub: string }[]).find((k) => k.sub === 'initech')?.jti;
      assert.ok(badId !== undefined, listed.stdout + listed.stderr);
      const revoked = await keys(env, 'revoke', badId);
      assert.equal(revoked.status, 0, revoked.stderr);
      const [gateway] = gateways as [RunningGateway];
      assert.equal(await call(gateway, bad), 401);
      await redis.stop();
      try {
        assert.equal(await call(gateway, good), 200);
        assert.equal(await call(gateway, bad), 401);
      } finally {
        await redis.restart();
      }
    });
  });

// The compose deployment: the gateway mounts the keyring's public/ and also shares state in Redis.
// The operator revokes on the host, where Redis is not reachable: the file alone must hold, also
// after Redis comes back empty.
describe('revocations from the keyring file and Redis together', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  let upstream: RecordingUpstream;
  let gateways: RunningGateway[];
  let cliEnv: Record<string, string>;

  before(async () => {
    redis = await startRedis();
    upstream = await startRecordingUpstream();
    cliEnv = { KEYS_DIR: join(temporaryDir('gw-cli-'), 'keys') };
    assert.equal((await keys(cliEnv, 'init')).status, 0);
    const gatewayEnv = {
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      JWKS_FILE: join(cliEnv.KEYS_DIR as string, 'public', 'jwks.json'),
      REVOCATIONS_FILE: join(cliEnv.KEYS_DIR as string, 'public', 'revoked.json'),
      REDIS_URL: redis.url,
      REDIS_COMMAND_TIMEOUT_MS: '100',
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
    fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } }).then((res) => res.status);

  test('a key revoked in the file only is refused at once, and still after Redis restarts empty', async () => {
    const key = (await keys(cliEnv, 'issue', '--plan', 'pro', '--sub', 'acme')).stdout;
    for (const gateway of gateways) assert.equal(await call(gateway, key), 200);
    const jti = (JSON.parse((await keys(cliEnv, 'list', '--json')).stdout) as { jti: string }[])[0]?.jti as string;
    const revoked = await keys(cliEnv, 'revoke', jti);
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.match(revoked.stderr, /revoked \S+ in .*public\/revoked\.json: refused from the next request by every gateway that reads this file/);
    assert.match(revoked.stderr, /need REDIS_URL/, 'the operator is told Redis was not written');
    for (const gateway of gateways) assert.equal(await call(gateway, key), 401);
    await redis.stop();
    await redis.restart();
    for (const gateway of gateways) await waitForReady(gateway.url);
    for (const gateway of gateways) assert.equal(await call(gateway, key), 401);
  });

  test('keys revoke with a REDIS_URL that does not answer fails loudly, after writing the file', async () => {
    const key = (await keys(cliEnv, 'issue', '--plan', 'pro', '--sub', 'initech')).stdout;
    const jti = (JSON.parse((await keys(cliEnv, 'list', '--json')).stdout) as { jti: string; sub: string }[]).find((k) => k.sub === 'initech')?.jti as string;
    const dead = await keys({ ...cliEnv, REDIS_URL: `redis://127.0.0.1:${await freePort()}` }, 'revoke', jti);
    assert.equal(dead.status, 1);
    assert.match(dead.stderr, /NOT in Redis/);
    for (const gateway of gateways) assert.equal(await call(gateway, key), 401, 'the file was written all the same');
  });

  test('keys --help and keys help print the usage and succeed', async () => {
    for (const args of [['--help'], ['help'], ['-h']]) {
      const run = await keys(cliEnv, ...args);
      assert.equal(run.status, 0, args.join(' '));
      assert.match(run.stdout, /^usage: npm run keys -- <command>/);
    }
  });
});
