import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ERRORS } from '../errors.js';
import { ADMIN_ERRORS, AdminError, type AdminErrorCode } from './admin-errors.js';

test('every admin code is snake_case with a 4xx/5xx status and a sentence; a code shared with the API means the same', () => {
  for (const [code, { status, message }] of Object.entries(ADMIN_ERRORS)) {
    assert.match(code, /^[a-z]+(_[a-z0-9]+)*$/, code);
    assert.ok(status >= 400 && status <= 599 && STATUS_CODES[status] !== undefined, code);
    assert.match(message, /^[A-Z].*\.$/, code);
    assert.deepEqual(new AdminError(code as AdminErrorCode).body(), { code, message, status });
    if (Object.hasOwn(ERRORS, code)) assert.equal(ERRORS[code as keyof typeof ERRORS].status, status, `${code}: the same status as the API's`);
  }
});

test('the admin error table of docs/operating.md lists exactly these codes, with their statuses', () => {
  const doc = readFileSync(fileURLToPath(new URL('../../../../docs/operating.md', import.meta.url)), 'utf8');
  const start = doc.indexOf('### Admin API errors');
  assert.notEqual(start, -1);
  const section = doc.slice(start, doc.indexOf('\n## ', start));
  const rows = [...section.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => [m[2], Number(m[1])]);
  assert.deepEqual(
    rows.sort(),
    Object.entries(ADMIN_ERRORS)
      .map(([code, { status }]) => [code, status])
      .sort(),
  );
});
