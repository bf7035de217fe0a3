import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { temporaryDir } from '@animal-store/testkit';
import { keysCli as keys } from './support/index.js';

// Issue 29, point 1: a key whose account cannot travel in X-Api-Subject is refused by every
// gateway (401), so the CLI never signs one.
describe('keys issue --sub that no header can carry', () => {
  let env: Record<string, string>;

  before(async () => {
    env = { KEYS_DIR: join(temporaryDir('gw-issue-sub-'), 'keys') };
    assert.equal((await keys(env, 'init')).status, 0);
  });

  for (const sub of ['Łódź-日本語', 'alice ', ' alice', 'tab\there', 'bell\u0007', 'del\u007f']) {
    test(`refused with a usage error (exit 2): ${JSON.stringify(sub)}`, async () => {
      const result = await keys(env, 'issue', '--plan', 'pro', '--sub', sub);
      assert.equal(result.status, 2, result.stderr);
      assert.equal(result.stdout, '', 'no key printed');
      assert.match(result.stderr, /^keys: --sub may hold only visible ASCII and inner spaces/);
    });
  }

  test('nothing was issued; an account with inner spaces and punctuation is issued as before', async () => {
    const issued = join(env.KEYS_DIR as string, 'state.json');
    const before = readFileSync(issued, 'utf8');
    assert.doesNotMatch(before, /alice|Łódź/);
    const result = await keys(env, 'issue', '--plan', 'pro', '--sub', 'Acme Corp. <ops@acme.example>');
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  });
});

// Issue 39, point 3.1: `--plan` was held to free, pro, business and enterprise; it is checked
// against the plans the gateway reads (PLANS_FILE, else the shipped file).
describe('keys issue --plan: any plan of the plans file', () => {
  let env: Record<string, string>;
  let plansFile: string;

  before(async () => {
    const dir = temporaryDir('gw-issue-plan-');
    plansFile = join(dir, 'plans.json');
    writeFileSync(plansFile, JSON.stringify({ plans: { startup: { minute: 7, day: 100 } }, anonymous: { minute: 30, day: 1000 } }));
    env = { KEYS_DIR: join(dir, 'keys') };
    assert.equal((await keys(env, 'init')).status, 0);
  });

  test('a plan of PLANS_FILE is issued, with signed limits', async () => {
    const result = await keys({ ...env, PLANS_FILE: plansFile }, 'issue', '--plan', 'startup', '--sub', 'new-co', '--minute', '5');
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  test('a plan PLANS_FILE lacks is a usage error naming the plans it has', async () => {
    const result = await keys({ ...env, PLANS_FILE: plansFile }, 'issue', '--plan', 'pro', '--sub', 'old-co');
    assert.equal(result.status, 2, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^keys: --plan must be a plan of PLANS_FILE \S+plans\.json: startup\n/);
  });

  test('without PLANS_FILE, the shipped plans are the ones to name', async () => {
    assert.equal((await keys(env, 'issue', '--plan', 'business', '--sub', 'a', '--day', '9')).status, 0);
    const result = await keys(env, 'issue', '--plan', 'startup', '--sub', 'a');
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^keys: --plan must be a plan of PLANS_FILE \S+plans\.json: free, pro, business, enterprise\n/);
  });

  test('an unreadable PLANS_FILE is said, and nothing is issued', async () => {
    const result = await keys({ ...env, PLANS_FILE: join(plansFile, 'nope') }, 'issue', '--plan', 'startup', '--sub', 'a');
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^keys: PLANS_FILE /);
    assert.equal(result.stdout, '');
  });
});

// Issue 39, point 3.5: a key issued without --ttl never expired, without a word, and the usage
// line's `[--ttl 90d]` read like a default.
describe('keys issued without --ttl', () => {
  let env: Record<string, string>;

  before(async () => {
    env = { KEYS_DIR: join(temporaryDir('gw-issue-ttl-'), 'keys') };
    assert.equal((await keys(env, 'init')).status, 0);
  });

  test('issue says on stderr that the key never expires; stdout holds only the key', async () => {
    const result = await keys(env, 'issue', '--plan', 'pro', '--sub', 'forever');
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.match(
      result.stderr,
      /^keys: this key never expires \(no --ttl\): it works until it is revoked or its kid is retired; --ttl 90d gives one that ends\n$/,
    );
    const timed = await keys(env, 'issue', '--plan', 'pro', '--sub', 'timed', '--ttl', '90d');
    assert.equal(timed.stderr, '', 'a key with an expiry needs no word');
  });

  test('the usage says what no --ttl means; list shows it as never expiring, --json as null', async () => {
    const help = await keys(env, 'help');
    assert.match(help.stdout, /--ttl: how long the key works \(90d, 12h, 30m, 1y\); without it, the key never expires/);
    assert.doesNotMatch(help.stdout, /\[--ttl 90d\]/);
    const table = await keys(env, 'list');
    assert.match(table.stdout, /forever +pro +never +no +yes/);
    const listed = JSON.parse((await keys(env, 'list', '--json')).stdout) as { sub: string; expiresAt: string | null }[];
    assert.equal(listed.find((key) => key.sub === 'forever')?.expiresAt, null);
    assert.match(listed.find((key) => key.sub === 'timed')?.expiresAt ?? '', /^\d{4}-/);
  });
});
