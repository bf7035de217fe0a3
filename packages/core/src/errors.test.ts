import assert from 'node:assert/strict';
import { STATUS_CODES } from 'node:http';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ERRORS, HttpError, errorBody, type ErrorCode } from './errors.js';

test('every code is snake_case with a 4xx/5xx status and a sentence for a message', () => {
  for (const [code, { status, message }] of Object.entries(ERRORS)) {
    assert.match(code, /^[a-z]+(_[a-z0-9]+)*$/, code);
    assert.ok(status >= 400 && status <= 599 && STATUS_CODES[status] !== undefined, code);
    assert.match(message, /^[A-Z].*\.$/, code);
  }
});

test('an HttpError carries the status of its code into the body', () => {
  for (const code of Object.keys(ERRORS) as ErrorCode[]) {
    const error = new HttpError(code);
    assert.deepEqual(error.toBody(), { code, message: ERRORS[code].message, status: ERRORS[code].status });
    assert.deepEqual(errorBody(code, 'custom'), { code, message: 'custom', status: ERRORS[code].status });
  }
});

test('the error table of docs/core.md lists exactly the codes of this table, with their statuses', () => {
  const readme = readFileSync(fileURLToPath(new URL('../../../docs/core.md', import.meta.url)), 'utf8');
  const section = readme.slice(readme.indexOf('### Errors'), readme.indexOf('### Health'));
  const rows = [...section.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => [m[2], Number(m[1])]);
  assert.deepEqual(
    rows.sort(),
    Object.entries(ERRORS)
      .map(([code, { status }]) => [code, status])
      .sort(),
  );
});
