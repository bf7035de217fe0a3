import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_RETRY, nextStep, type AttemptOutcome } from './retry-policy.js';

const answer = (status: number, code = 'x', retryAfterSeconds?: number): AttemptOutcome => ({ kind: 'answer', status, code, retryAfterSeconds });
const half = () => 0.5;

test('the retry rules, case by case', () => {
  const cases: [string, number, AttemptOutcome, boolean, ReturnType<typeof nextStep>][] = [
    ['429 rate_limited waits Retry-After exactly', 1, answer(429, 'rate_limited', 7), false, { retry: true, delayMs: 7000 }],
    ['429 rate_limited over maxDelayMs fails at once', 1, answer(429, 'rate_limited', 121), true, { retry: false }],
    ['429 at maxDelayMs still waits', 1, answer(429, 'rate_limited', 120), true, { retry: true, delayMs: 120_000 }],
    ['429 key_banned is never retried', 1, answer(429, 'key_banned', 3), true, { retry: false }],
    ['429 quota_exhausted is never retried, however short its Retry-After', 1, answer(429, 'quota_exhausted', 3), true, { retry: false }],
    ['429 operation_limited waits Retry-After, as rate_limited', 1, answer(429, 'operation_limited', 2), true, { retry: true, delayMs: 2000 }],
    ['429 without Retry-After (never admitted) is not retried', 1, answer(429, 'rate_limited'), true, { retry: false }],
    ['502 on a replayable call backs off', 1, answer(502), true, { retry: true, delayMs: 50 }],
    ['503 backs off, doubling', 2, answer(503), true, { retry: true, delayMs: 100 }],
    ['504 backs off, doubling again', 3, answer(504), true, { retry: true, delayMs: 200 }],
    ['a network error backs off', 1, { kind: 'network' }, true, { retry: true, delayMs: 50 }],
    ['503 waits at least its Retry-After', 1, answer(503, 'rate_limit_unavailable', 1), true, { retry: true, delayMs: 1000 }],
    ['502 on a call not safe to repeat is not retried', 1, answer(502), false, { retry: false }],
    ['a network error on a call not safe to repeat is not retried', 1, { kind: 'network' }, false, { retry: false }],
    ['500 is not retried', 1, answer(500, 'internal_error'), true, { retry: false }],
    ['501 is not retried', 1, answer(501, 'not_implemented'), true, { retry: false }],
    ['400 is not retried', 1, answer(400, 'invalid_body'), true, { retry: false }],
    ['401 is not retried', 1, answer(401, 'unauthorized'), true, { retry: false }],
    ['404 is not retried', 1, answer(404, 'pet_not_found'), true, { retry: false }],
    ['the last attempt is never followed by another', 4, answer(429, 'rate_limited', 1), true, { retry: false }],
  ];
  for (const [name, attempt, outcome, replayable, expected] of cases) {
    assert.deepEqual(nextStep(attempt, outcome, replayable, DEFAULT_RETRY, half), expected, name);
  }
});

test('full jitter: the delay is random() times a ceiling that doubles from 100 ms and stops at maxDelayMs', () => {
  const settings = { ...DEFAULT_RETRY, maxAttempts: 20, maxDelayMs: 1000 };
  const ceilings = [1, 2, 3, 4, 5, 6, 7].map((attempt) => nextStep(attempt, answer(503), true, settings, () => 0.9999));
  assert.deepEqual(
    ceilings.map((verdict) => (verdict.retry ? verdict.delayMs : -1)),
    [99, 199, 399, 799, 999, 999, 999],
  );
  const zero = nextStep(5, answer(502), true, settings, () => 0);
  assert.deepEqual(zero, { retry: true, delayMs: 0 });
});
