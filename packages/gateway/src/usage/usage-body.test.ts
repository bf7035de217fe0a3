import assert from 'node:assert/strict';
import { test } from 'node:test';
import { minuteAndDay, type RateDecision } from '../ratelimit/index.js';
import { usageBody } from './usage-body.js';

const NOW = Date.UTC(2030, 0, 1, 0, 0, 30, 250);
const identity = { subject: 'acme', keyId: 'k1', plan: 'pro' as const, expiresAt: Date.UTC(2030, 5, 1), limits: undefined };
const decision = (fields: Partial<RateDecision>): RateDecision => ({
  kind: 'allowed',
  source: 'process',
  allowed: true,
  banned: false,
  revoked: false,
  policy: minuteAndDay('pro', 300, 10_000),
  windows: [
    { name: 'minute', limit: 300, windowMs: 60_000, remaining: 299, resetAt: NOW + 30_500 },
    { name: 'day', limit: 10_000, windowMs: 86_400_000, remaining: 9_999, resetAt: NOW - 5 },
  ],
  retryAt: undefined,
  now: NOW,
  ...fields,
});

test('per window: limit, remaining and the reset in Unix seconds; the key expiry; no ban', () => {
  assert.deepEqual(usageBody(identity, decision({})), {
    plan: 'pro',
    windows: {
      minute: { limit: 300, remaining: 299, resetAt: Math.ceil((NOW + 30_500) / 1000) },
      day: { limit: 10_000, remaining: 9_999, resetAt: Math.ceil(NOW / 1000) }, // never in the past
    },
    ban: null,
    keyExpiresAt: Date.UTC(2030, 5, 1) / 1000,
  });
});

test('a banned key is told until when; a key without expiry says null', () => {
  const body = usageBody({ ...identity, expiresAt: undefined }, decision({ kind: 'banned', allowed: false, banned: true, retryAt: NOW + 299_001 }));
  assert.deepEqual(body.ban, { until: Math.ceil((NOW + 299_001) / 1000) });
  assert.equal(body.keyExpiresAt, null);
});

test('without limits: the plan and the key, no windows', () => {
  assert.deepEqual(usageBody(identity, undefined), { plan: 'pro', windows: {}, ban: null, keyExpiresAt: Date.UTC(2030, 5, 1) / 1000 });
});
