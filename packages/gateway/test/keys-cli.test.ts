import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { type RedisServer, redisSkipReason, startRedis, temporaryDir } from '@animal-store/testkit';
import { redisKeyNames } from '../src/redis/index.js';
import { keysCli as keys } from './support/index.js';

const KEYS_CLI = fileURLToPath(new URL('../src/cli/keys.ts', import.meta.url));

// Issue 19, keys never in logs: `keys revoke` takes the key itself where it takes its id, and
// never prints the key back (terminal scrollback and CI logs keep what a command prints).
describe('keys revoke <the whole key>', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  let admin: Redis;
  let env: Record<string, string>;

  before(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
    env = { KEYS_DIR: join(temporaryDir('gw-revoke-key-'), 'keys'), REDIS_URL: redis.url };
    assert.equal((await keys(env, 'init')).status, 0);
  });
  after(async () => {
    admin?.disconnect();
    await redis?.close();
  });

  test('revokes by the key id it carries, in the file and in Redis, and prints neither the key nor a part of it', async () => {
    const issued = await keys(env, 'issue', '--plan', 'pro', '--sub', 'revoke-by-key');
    const key = issued.stdout;
    const { jti } = JSON.parse(Buffer.from(key.split('.')[1] as string, 'base64url').toString()) as { jti: string };
    const revoked = await keys(env, 'revoke', key);
    assert.equal(revoked.status, 0, revoked.stderr);
    const printed = revoked.stdout + revoked.stderr;
    assert.match(printed, new RegExp(`revoked ${jti} in `));
    for (const part of [key, ...key.split('.')]) assert.equal(printed.includes(part), false, `the output holds ${part.slice(0, 12)}…`);
    const file = JSON.parse(readFileSync(join(env.KEYS_DIR as string, 'public', 'revoked.json'), 'utf8')) as { revoked: Record<string, string> };
    assert.deepEqual(Object.keys(file.revoked), [jti]);
    assert.equal(await admin.sismember(redisKeyNames('gw').revoked, jti), 1);
  });

  test('something with dots that is no key: a usage error that does not echo it', async () => {
    const junk = 'not.a.key-but-secret-looking';
    const result = await keys(env, 'revoke', junk);
    assert.equal(result.status, 2);
    assert.equal((result.stdout + result.stderr).includes(junk), false);
  });
});

// Issue 22: `keys list | head` must not die with an EPIPE stack when the reader stops early.
test('keys list into a pipe closed before it writes: exit 0, nothing on stderr', { skip: redisSkipReason() }, async () => {
  const dir = join(temporaryDir('gw-list-pipe-'), 'keys');
  assert.equal((await keys({ KEYS_DIR: dir }, 'init')).status, 0);
  for (let i = 0; i < 3; i++) assert.equal((await keys({ KEYS_DIR: dir }, 'issue', '--plan', 'pro', '--sub', `piped-${i}`)).status, 0);
  const child = spawn(process.execPath, ['--import', 'tsx', KEYS_CLI, 'list'], {
    env: { PATH: process.env.PATH, KEYS_DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The reader goes away before the CLI (a second of tsx start-up) writes a byte, as `head` does.
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(stderr, '');
  assert.equal(code, 0);
});
