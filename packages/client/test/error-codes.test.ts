import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERRORS } from '@animal-store/gateway';
import { KNOWN_ERROR_CODES } from '../src/index.js';

// ApiError.code is typed with the codes a caller can meet: every code of the gateway is among them,
// so a new gateway code (issue 21 added quota_exhausted and operation_limited) cannot be forgotten.
test("the client knows every code of the gateway's", () => {
  const known = new Set<string>(KNOWN_ERROR_CODES);
  assert.deepEqual(
    Object.keys(ERRORS).filter((code) => !known.has(code)),
    [],
  );
});
