import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { temporaryDir } from '@animal-store/testkit';
import { keysCli as keys } from './support/index.js';

// Issue 39, point 3.4: `keys reroll --grace 300000y` issued and registered a new key, then failed
// with "Invalid time value" without printing it; rerolling a revoked key printed a working key
// for the account without a word.

const jtiOf = (key: string) => (JSON.parse(Buffer.from(key.split('.')[1] as string, 'base64url').toString()) as { jti: string }).jti;

describe('keys reroll checks every argument before anything is written', () => {
  let env: Record<string, string>;
  let dir: string;
  /** The keyring's register and deny-list, as text: what a refused command must leave as it was. */
  const files = () => [readFileSync(join(dir, 'state.json'), 'utf8'), readFileSync(join(dir, 'public', 'revoked.json'), 'utf8')];

  before(async () => {
    dir = join(temporaryDir('gw-reroll-checks-'), 'keys');
    env = { KEYS_DIR: dir };
    assert.equal((await keys(env, 'init')).status, 0);
  });

  for (const [what, args] of [
    ['--grace 300000y', ['--grace', '300000y']],
    ['--ttl 300000y', ['--grace', '1h', '--ttl', '300000y']],
  ] as const) {
    test(`${what}: a usage error, no key printed, nothing issued or revoked`, async () => {
      const old = (await keys(env, 'issue', '--plan', 'pro', '--sub', 'far')).stdout;
      const before = files();
      const result = await keys(env, 'reroll', jtiOf(old), ...args);
      assert.equal(result.status, 2, result.stderr);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /^keys: --(grace|ttl) must be at most 1000y/);
      assert.doesNotMatch(result.stderr, /Invalid time value/);
      assert.deepEqual(files(), before);
    });
  }

  test('issue --ttl 300000y: a usage error, nothing issued', async () => {
    const before = files();
    const result = await keys(env, 'issue', '--plan', 'pro', '--sub', 'far', '--ttl', '300000y');
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /^keys: --ttl must be at most 1000y/);
    assert.deepEqual(files(), before);
  });

  test('a revoked key is not rerolled without --force; with it, the new key is printed and the revocation said', async () => {
    const old = (await keys(env, 'issue', '--plan', 'pro', '--sub', 'gone')).stdout;
    assert.equal((await keys(env, 'revoke', jtiOf(old))).status, 0);
    const before = files();
    const refused = await keys(env, 'reroll', jtiOf(old), '--grace', '0');
    assert.equal(refused.status, 1, refused.stderr);
    assert.equal(refused.stdout, '');
    assert.match(
      refused.stderr,
      new RegExp(`^keys: ${jtiOf(old)} was revoked on \\S+: a reroll would give account gone a working key again; add --force if that is meant\\n`),
    );
    assert.deepEqual(files(), before);
    const forced = await keys(env, 'reroll', jtiOf(old), '--grace', '0', '--force');
    assert.equal(forced.status, 0, forced.stderr);
    assert.match(forced.stdout, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.match(forced.stderr, new RegExp(`^rerolled ${jtiOf(old)}, revoked on \\S+, as ${jtiOf(forced.stdout)} `));
    // Issue 39, 3.5: the old key had no --ttl, nor has the new one, and that is said.
    assert.match(forced.stderr, /\nkeys: the new key never expires, as the old one did not \(no --ttl\)/);
  });

  test('a key whose plan PLANS_FILE no longer has is not rerolled: the gateway would refuse the new key', async () => {
    const old = (await keys(env, 'issue', '--plan', 'business', '--sub', 'moved')).stdout;
    const plans = join(temporaryDir('gw-reroll-plans-'), 'plans.json');
    writeFileSync(plans, JSON.stringify({ plans: { startup: { minute: 7, day: 100 } }, anonymous: { minute: 30, day: 1000 } }));
    const before = files();
    const result = await keys({ ...env, PLANS_FILE: plans }, 'reroll', jtiOf(old), '--grace', '1h');
    assert.equal(result.status, 2, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^keys: the key's plan \(business\) is not a plan of PLANS_FILE \S+: startup/);
    assert.deepEqual(files(), before);
  });
});
