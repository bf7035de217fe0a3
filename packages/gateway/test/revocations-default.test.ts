import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type RedisServer, redisSkipReason, startRedis, temporaryDir, waitForReady } from '@animal-store/testkit';
import { loadConfig } from '../src/config/index.js';
import {
  keysCli as keys,
  PROXY_TEST_PATHS,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  writeDocument,
} from './support/index.js';

// Issue 19, secure by default: a gateway given the keyring's public folder (JWKS_FILE=…/public/
// jwks.json) reads the deny-list beside it without REVOCATIONS_FILE. Before, a key revoked in the
// file was admitted again by a gateway whose Redis had restarted empty.
describe('REVOCATIONS_FILE defaults to the keyring deny-list beside JWKS_FILE', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  let upstream: RecordingUpstream;
  let keysDir: string;
  const gateways: RunningGateway[] = [];

  before(async () => {
    redis = await startRedis();
    upstream = await startRecordingUpstream();
    keysDir = join(temporaryDir('gw-default-deny-'), 'keys');
    assert.equal((await keys({ KEYS_DIR: keysDir }, 'init')).status, 0);
  });
  after(async () => {
    for (const gateway of gateways) await gateway.close();
    await upstream?.close();
    await redis?.close();
  });

  async function gateway(extra: Record<string, string> = {}): Promise<RunningGateway> {
    const started = await startGateway({
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      JWKS_FILE: join(keysDir, 'public', 'jwks.json'),
      REDIS_URL: redis.url,
      RATE_LIMITS: 'on',
      ...extra,
    });
    gateways.push(started);
    await waitForReady(started.url);
    return started;
  }
  const statusOf = (url: string, token: string) =>
    fetch(`${url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } }).then(async (res) => (await res.arrayBuffer(), res.status));

  test('a key revoked in the file only (Redis never told, as after it restarted empty) is refused; another key passes', async () => {
    const revoked = await keys({ KEYS_DIR: keysDir }, 'issue', '--plan', 'pro', '--sub', 'default-deny');
    const other = await keys({ KEYS_DIR: keysDir }, 'issue', '--plan', 'pro', '--sub', 'default-deny');
    const { jti } = JSON.parse(Buffer.from(revoked.stdout.split('.')[1] as string, 'base64url').toString()) as { jti: string };
    // Without REDIS_URL the CLI writes the file alone: the Redis deny-list stays empty.
    assert.equal((await keys({ KEYS_DIR: keysDir }, 'revoke', jti)).status, 0);
    const started = await gateway();
    assert.equal(started.config.auth.mode === 'required' && started.config.auth.revocationsFile, join(keysDir, 'public', 'revoked.json'));
    assert.equal(await statusOf(started.url, revoked.stdout), 401, 'the key revoked in the file');
    assert.equal(await statusOf(started.url, other.stdout), 200, 'a key not revoked');
  });

  test('REVOCATIONS_FILE=none makes Redis the only deny-list, by choice', () => {
    const result = loadConfig({
      UPSTREAM_URL: 'http://127.0.0.1:1',
      JWKS_FILE: join(keysDir, 'public', 'jwks.json'),
      REVOCATIONS_FILE: 'none',
      REDIS_URL: redis.url,
    });
    assert.ok(result.ok);
    assert.equal(result.config.auth.mode === 'required' ? result.config.auth.revocationsFile : 'off', undefined);
  });

  test('a key set outside a keyring folder gets no default deny-list', () => {
    const jwks = join(temporaryDir('gw-loose-jwks-'), 'keys.json');
    const result = loadConfig({ UPSTREAM_URL: 'http://127.0.0.1:1', JWKS_FILE: jwks });
    assert.ok(result.ok);
    assert.equal(result.config.auth.mode === 'required' ? result.config.auth.revocationsFile : 'off', undefined);
  });
});
