import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ERRORS, errorBody, type ErrorCode } from './errors.js';

test('every code is snake_case with a 4xx/5xx status and a sentence for a message', () => {
  for (const [code, { status, message }] of Object.entries(ERRORS)) {
    assert.match(code, /^[a-z]+(_[a-z0-9]+)*$/, code);
    assert.ok(status >= 400 && status <= 599 && STATUS_CODES[status] !== undefined, code);
    assert.match(message, /^[A-Z].*\.$/, code);
    assert.deepEqual(errorBody(code as ErrorCode), { code, message, status });
  }
});

test('the gateway error table of docs/gateway.md lists exactly these codes, with their statuses', () => {
  const readme = readFileSync(fileURLToPath(new URL('../../../docs/gateway.md', import.meta.url)), 'utf8');
  const start = readme.indexOf('### Gateway errors');
  const section = readme.slice(start, readme.indexOf('\n## ', start));
  const rows = [...section.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => [m[2], Number(m[1])]);
  assert.deepEqual(
    rows.sort(),
    Object.entries(ERRORS)
      .map(([code, { status }]) => [code, status])
      .sort(),
  );
});
