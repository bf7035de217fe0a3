import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRedisViews } from './redis-views.js';
import { MINUTE_MS, type Policy } from '../policy.js';
import type { RateDecision } from '../decision.js';

const window = { name: 'minute' as const, limit: 60, windowMs: MINUTE_MS, buckets: 6 };
const ANONYMOUS: Policy = { name: 'anonymous', anonymous: true, windows: [window], ban: undefined };
const PRO: Policy = { name: 'pro', windows: [window], ban: undefined };

/** A decision that says `used` of the minute's 60 were counted. */
const said = (used: number): RateDecision => ({ allowed: true, windows: [{ ...window, remaining: 60 - used, resetMs: MINUTE_MS }] }) as unknown as RateDecision;

const AT = 1_800_000_000_000;

test('anonymous addresses: at most maxAddresses views, the address least recently seen forgotten first', () => {
  const views = createRedisViews({ maxAddresses: 10 });
  for (let n = 0; n < 50; n++) views.remember({ subject: `ip:10.0.0.${n}`, keyId: undefined, policy: ANONYMOUS }, said(n), AT);
  // Seen again: no longer the least recent.
  views.remember({ subject: 'ip:10.0.0.40', keyId: undefined, policy: ANONYMOUS }, said(2), AT);
  views.remember({ subject: 'ip:10.0.0.50', keyId: undefined, policy: ANONYMOUS }, said(59), AT);
  const subjects = Array.from({ length: 51 }, (_, n) => `ip:10.0.0.${n}`);
  assert.deepEqual(
    Object.keys(views.usedAt(subjects, AT)),
    ['ip:10.0.0.40', ...[42, 43, 44, 45, 46, 47, 48, 49, 50].map((n) => `ip:10.0.0.${n}`)].sort((a, b) => subjects.indexOf(a) - subjects.indexOf(b)),
  );
  // Each keeps its own count, in an entry a forgotten address had before.
  assert.deepEqual(views.usedAt(['ip:10.0.0.40', 'ip:10.0.0.49', 'ip:10.0.0.50'], AT), {
    'ip:10.0.0.40': { minute: 2 },
    'ip:10.0.0.49': { minute: 49 },
    'ip:10.0.0.50': { minute: 59 },
  });
  // A minute later, the window has closed: nothing to seed with.
  assert.deepEqual(views.usedAt(['ip:10.0.0.49'], AT + MINUTE_MS), { 'ip:10.0.0.49': {} });
});

test('a flood of addresses forgets no account', () => {
  const views = createRedisViews({ maxAddresses: 10 });
  views.remember({ subject: 'acme', keyId: 'k1', policy: PRO }, said(7), AT);
  for (let n = 0; n < 1000; n++) views.remember({ subject: `ip:10.0.${n >> 8}.${n & 255}`, keyId: undefined, policy: ANONYMOUS }, said(1), AT);
  assert.deepEqual(views.usedAt(['acme'], AT + 1000), { acme: { minute: 7 } });
});

test('a window that has closed since the answer is left out', () => {
  const views = createRedisViews();
  views.remember({ subject: 'acme', keyId: 'k1', policy: PRO }, said(7), AT);
  assert.deepEqual(views.usedAt(['acme', 'never'], AT + MINUTE_MS), { acme: {} });
});
