import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { type RedisServer, redisSkipReason, startRedis, temporaryDir } from '@animal-store/testkit';
import { redisKeyNames } from '../src/redis/index.js';
import { claimsFor, CONTROL_CHARACTER, createTestKeyring, echoBaits, forgedKeys, keysCli as keys, type TestKeyring } from './support/index.js';

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

const revokedFile = (dir: string) => JSON.parse(readFileSync(join(dir, 'public', 'revoked.json'), 'utf8')) as { revoked: Record<string, string> };

// Issue 29, point 5: `keys revoke <token>` used the id of a token it never verified, so a token
// forged with another account's `jti` revoked that account's key.
describe('keys revoke verifies a whole key before using its id', () => {
  let keyring: TestKeyring;
  let victim: { jti: string; token: string };
  before(async () => {
    keyring = await createTestKeyring();
    const issued = await keyring.issue({ sub: 'victim' });
    victim = { jti: issued.record.jti, token: issued.token };
  });

  test("a token forged with the victim's id (another keyring, alg none, HS256, wrong issuer or audience) is refused, and nothing is revoked", async () => {
    const forged = await forgedKeys(keyring, claimsFor({ sub: 'victim', jti: victim.jti }));
    const results = await Promise.all(Object.values(forged).map((token) => keys({ KEYS_DIR: keyring.dir }, 'revoke', token)));
    for (const [i, name] of Object.keys(forged).entries()) {
      const result = results[i] as Awaited<ReturnType<typeof keys>>;
      assert.equal(result.status, 1, `${name}: ${result.stderr}`);
      assert.match(
        result.stderr,
        /^keys: that is not a valid key of this keyring \(.*jwks\.json, issuer animal-store, audience animal-store-production\): .+ Nothing was revoked/m,
        name,
      );
      assert.equal((result.stdout + result.stderr).includes(victim.jti), false, `${name}: the unverified id is not printed`);
    }
    assert.deepEqual(revokedFile(keyring.dir).revoked, {}, 'no key was revoked');
  });

  test('the key itself and a bare id still revoke', async () => {
    const byKey = await keys({ KEYS_DIR: keyring.dir }, 'revoke', victim.token);
    assert.equal(byKey.status, 0, byKey.stderr);
    assert.match(byKey.stderr, new RegExp(`^revoked ${victim.jti} in `));
    const other = (await keyring.issue({ sub: 'other' })).record.jti;
    const byId = await keys({ KEYS_DIR: keyring.dir }, 'revoke', other);
    assert.equal(byId.status, 0, byId.stderr);
    assert.deepEqual(Object.keys(revokedFile(keyring.dir).revoked).sort(), [victim.jti, other].sort());
  });
});

// Issue 29, point 6: `keys revoke` echoed what it was given: the signature of a key split at its
// last dot, and terminal escapes in an id.
test('keys revoke never echoes its argument: no part of a key, no control character', async () => {
  const keyring = await createTestKeyring();
  const { token } = await keyring.issue({ sub: 'echo' });
  const baits = echoBaits(token);
  const results = await Promise.all(baits.map(({ args }) => keys({ KEYS_DIR: keyring.dir }, 'revoke', ...args)));
  for (const [i, { args, secret }] of baits.entries()) {
    const result = results[i] as Awaited<ReturnType<typeof keys>>;
    const printed = result.stdout + result.stderr;
    assert.notEqual(result.status, 0, JSON.stringify(args));
    assert.equal(printed.includes(secret), false, `${JSON.stringify(args)} is echoed:\n${printed}`);
    assert.doesNotMatch(printed, CONTROL_CHARACTER, JSON.stringify(args));
  }
  assert.deepEqual(revokedFile(keyring.dir).revoked, {});
});

test('keys list shows an account named with terminal escapes escaped, and --json keeps it exact', async () => {
  const keyring = await createTestKeyring();
  const sub = 'evil\u001b]0;owned\u0007\u009b2J\u202e\nline';
  await keyring.issue({ sub });
  const [table, json] = await Promise.all([keys({ KEYS_DIR: keyring.dir }, 'list'), keys({ KEYS_DIR: keyring.dir }, 'list', '--json')]);
  for (const result of [table, json]) {
    assert.equal(result.status, 0, result.stderr);
    assert.doesNotMatch(result.stdout, CONTROL_CHARACTER);
  }
  assert.match(table.stdout, /evil\\u001b\]0;owned\\u0007\\u009b2J\\u202e\\u000aline/);
  assert.equal(table.stdout.split('\n').length, 2, 'one line a key');
  assert.equal((JSON.parse(json.stdout) as { sub: string }[])[0]?.sub, sub);
});

// Issue 29, point 15: a broken keyring file was reported as `Unterminated string in JSON at
// position 17`, without its name; a second revocation overwrote the first one's date.
test('a keyring file that does not parse is named, with what is wrong, and the command exits 1', async () => {
  const cases = [
    { file: 'state.json', content: '{"issuer": "animal-st', problem: /is not valid JSON: Unterminated string in JSON at position \d+/, byKey: false },
    { file: 'public/revoked.json', content: '{"revoked": []}', problem: /is not a deny-list .*: revoked: /, byKey: false },
    { file: 'public/jwks.json', content: '[', problem: /is not valid JSON: /, byKey: true },
    { file: 'state.json', content: '{"issuer": "i"}', problem: /is not a keyring's state .*: audience: .*; signingKid: /, byKey: false },
  ];
  for (const { file, content, problem, byKey } of cases) {
    const keyring = await createTestKeyring();
    const { record, token } = await keyring.issue();
    writeFileSync(join(keyring.dir, file), content);
    const result = await keys({ KEYS_DIR: keyring.dir }, 'revoke', byKey ? token : record.jti);
    assert.equal(result.status, 1, `${file}: ${result.stderr}`);
    const path = join(keyring.dir, file).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    assert.match(result.stderr, new RegExp(`^keys: (cannot read )?${path}`), file);
    assert.match(result.stderr, problem, file);
  }
});

test('revoking a key twice keeps the first date and says it was already revoked', async () => {
  const keyring = await createTestKeyring();
  const { record } = await keyring.issue();
  assert.equal((await keys({ KEYS_DIR: keyring.dir }, 'revoke', record.jti)).status, 0);
  const first = revokedFile(keyring.dir).revoked[record.jti];
  await new Promise((resolve) => setTimeout(resolve, 5));
  const again = await keys({ KEYS_DIR: keyring.dir }, 'revoke', record.jti);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stderr, new RegExp(`^${record.jti} was already revoked \\(on ${first}\\) in .*revoked\\.json, kept as it was`));
  assert.equal(revokedFile(keyring.dir).revoked[record.jti], first);
});
