import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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
