import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryDir } from '@animal-store/testkit';
import { readAdminTokens } from './admin-tokens.js';

const ALICE = 'a1'.repeat(20);
const BOB = 'b2'.repeat(20);

function tokenFile(text: string, name = 'tokens'): string {
  const file = join(temporaryDir('admin-tokens-'), name);
  writeFileSync(file, text);
  return file;
}

test('name:token lines, comments and blank lines; a bare token is named after its file', () => {
  const tokens = readAdminTokens(tokenFile(`# the operators\nops-alice:${ALICE}\n\n  ops.bob : ${BOB}  \n`));
  assert.deepEqual(tokens.names, ['ops-alice', 'ops.bob']);
  assert.equal(tokens.nameOf(`Bearer ${ALICE}`), 'ops-alice');
  assert.equal(tokens.nameOf(`bearer ${BOB}`), 'ops.bob', 'the scheme is case-insensitive (RFC 9110)');
  const bare = readAdminTokens(tokenFile(`${ALICE}\n`, 'admin-token.txt'));
  assert.deepEqual(bare.names, ['admin-token']);
  assert.equal(bare.nameOf(`Bearer ${ALICE}`), 'admin-token');
});

test('a wrong, partial or missing token names nobody', () => {
  const tokens = readAdminTokens(tokenFile(`ops:${ALICE}\n`));
  for (const sent of [
    undefined,
    '',
    'Bearer',
    `Bearer ${BOB}`,
    `Bearer ${ALICE.slice(1)}`,
    `Bearer ${ALICE}x`,
    `Basic ${ALICE}`,
    ALICE,
    `Bearer ${ALICE} ${ALICE}`,
  ]) {
    assert.equal(tokens.nameOf(sent), undefined, String(sent));
  }
});

test('a missing, empty or wrong file is refused with every problem, and never shows a token', () => {
  assert.throws(() => readAdminTokens('/nonexistent/admin-tokens'), /^Error: ADMIN_TOKEN_FILE \/nonexistent\/admin-tokens cannot be read: ENOENT/);
  assert.throws(() => readAdminTokens(tokenFile('# nothing yet\n\n')), /holds no token \(one a line, name:token\)/);
  const wrong = tokenFile(`ops:short\nops:${ALICE}\nbad name:${BOB}\nother:${ALICE}\nspace:${'x'.repeat(20)} ${'y'.repeat(20)}\n`);
  assert.throws(
    () => readAdminTokens(wrong),
    (error: Error) => {
      assert.match(error.message, /line 1: the token is 5 characters, fewer than 32/);
      assert.match(error.message, /line 2: the name ops is given twice/);
      assert.match(error.message, /line 3: the name "bad name" is not 1 to 64 of A-Z a-z 0-9 \. _ -/);
      assert.match(error.message, /line 4: the token of other is another name's too/);
      assert.match(error.message, /line 5: the token holds a space/);
      assert.doesNotMatch(error.message, new RegExp(`short|${ALICE}|${BOB}`), 'no token in the message: it would end in a log');
      return true;
    },
  );
});
