import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RateDecision } from '../decision.js';
import type { LimitRequest } from '../limiter.js';
import { createMemoryLimiter } from '../memory/index.js';
import { dayWindow, minuteWindow, monthWindow, type Policy } from '../policy.js';
import { answerOf, decisionOf } from './protocol.js';

// What travels back from the primary is numbers only; the worker puts the rest back from its
// request. The decision it rebuilds must be the one the primary's limiter made, field for field:
// the headers, the refusal's code (`quota_exhausted` for a month) and `/v1/usage` read them.
const PLAN: Policy = { name: 'metered', windows: [minuteWindow(5), dayWindow(100), monthWindow(3)], ban: undefined };
const CEILING: Policy = { name: 'createPet', windows: [minuteWindow(2), monthWindow(50)], ban: undefined };

test('a decision crosses the IPC channel unchanged: months, layers, bindings, shadow and peeks', async () => {
  const limiter = createMemoryLimiter({ now: () => Date.UTC(2026, 10, 26, 12) });
  const layers = [{ subject: 'op:createPet', policy: CEILING }];
  const requests: LimitRequest[] = [
    { subject: 'acct:a', keyId: 'k1', policy: PLAN, layers },
    { subject: 'acct:a', keyId: 'k1', policy: PLAN, layers },
    { subject: 'acct:a', keyId: 'k1', policy: PLAN, layers },
    { subject: 'acct:b', keyId: 'k2', policy: PLAN, cost: 3 },
    { subject: 'acct:b', keyId: 'k2', policy: PLAN },
    { subject: 'acct:c', keyId: 'k3', policy: PLAN, cost: 3 },
    { subject: 'acct:c', keyId: 'k3', policy: PLAN, shadow: true },
    { subject: 'acct:c', keyId: 'k3', policy: PLAN, peek: true },
  ];
  const decided: RateDecision[] = [];
  for (const request of requests) {
    const original = await limiter.check(request);
    decided.push(original);
    assert.deepEqual(decisionOf(request, answerOf(original)), original);
  }
  // The cases above reach what the assert must cover.
  assert.ok(
    decided.some((d) => d.kind === 'limited' && d.binding?.kind === 'month'),
    'a month refuses',
  );
  assert.ok(
    decided.some((d) => d.kind === 'limited' && d.binding?.layer === 'createPet'),
    'a ceiling refuses',
  );
  assert.ok(
    decided.some((d) => d.shadow === true),
    'a shadow admission',
  );
});
