import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERRORS, type ErrorCode } from '../errors.js';
import { problemDetails, wantsProblemDetails } from './problem-details.js';

test('every gateway error has problem details: type, title, status, detail and code', () => {
  for (const code of Object.keys(ERRORS) as ErrorCode[]) {
    const problem = problemDetails(code);
    assert.equal(problem.status, ERRORS[code].status, code);
    assert.equal(problem.code, code);
    assert.equal(problem.detail, ERRORS[code].message);
    assert.ok(problem.title.length > 0 && problem.type.length > 0, code);
  }
});

test("429 and 503 use the rate-limit draft's problem types; the rest are about:blank with the reason phrase", () => {
  const types = Object.fromEntries((Object.keys(ERRORS) as ErrorCode[]).map((code) => [code, problemDetails(code).type]));
  assert.equal(types.rate_limited, 'https://iana.org/assignments/http-problem-types#quota-exceeded');
  assert.equal(types.key_banned, 'https://iana.org/assignments/http-problem-types#abnormal-usage-detected');
  for (const code of ['rate_limit_unavailable', 'auth_unavailable', 'not_ready'])
    assert.equal(types[code], 'https://iana.org/assignments/http-problem-types#temporary-reduced-capacity', code);
  assert.deepEqual(problemDetails('unauthorized'), {
    type: 'about:blank',
    title: 'Unauthorized',
    status: 401,
    detail: 'A valid API key is required: Authorization: Bearer <API key>.',
    code: 'unauthorized',
  });
  assert.equal(problemDetails('upstream_timeout').title, 'Gateway Timeout');
  assert.equal(problemDetails('bad_gateway', 'custom').detail, 'custom');
});

test("the per-address budget's refusal has a type of its own, naming it, with the violated policies", () => {
  const problem = problemDetails('anonymous_rate_limited', undefined, ['minute']);
  assert.equal(problem.type, 'tag:animal-store,2026:anonymous-budget-exceeded');
  assert.match(problem.title, /from this address without a valid API key or to no operation/);
  assert.match(problem.detail, /this address's budget|the address's budget/);
  assert.deepEqual(problem['violated-policies'], ['minute']);
});

test('quota-exceeded names the violated policies it is given (see exhaustedWindows), never for a ban', () => {
  assert.deepEqual(problemDetails('rate_limited', undefined, ['minute'])['violated-policies'], ['minute']);
  assert.equal(problemDetails('rate_limited', undefined, [])['violated-policies'], undefined);
  assert.equal(problemDetails('key_banned', undefined, ['minute'])['violated-policies'], undefined, 'a ban is not a quota policy');
});

test('problem details only when asked for by name, and not outweighed by application/json', () => {
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ['*/*', false],
    ['application/json', false],
    ['application/problem+json', true],
    ['Application/Problem+JSON', true],
    ['application/problem+json, application/json', true],
    ['application/json, application/problem+json', true],
    ['application/json;q=0.9, application/problem+json', true],
    ['application/json, application/problem+json;q=0.5', false],
    ['application/problem+json;q=0', false],
    ['application/*, application/problem+json;q=0.8', false],
    ['text/html, application/problem+json;q=0.1', true],
  ];
  for (const [accept, expected] of cases) assert.equal(wantsProblemDetails(accept), expected, String(accept));
});
