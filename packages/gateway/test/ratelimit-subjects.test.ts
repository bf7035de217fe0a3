import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { redisSkipReason } from '@animal-store/testkit';
import { createMemoryLimiter } from '../src/ratelimit/memory/index.js';
import { createPlans } from '../src/plans/index.js';
import { accountSubject, limitSubject, accountKey, type KeyHolder } from '../src/ratelimit/limit-key.js';
import type { Limiter } from '../src/ratelimit/index.js';
import { createRateLimiting } from '../src/ratelimit/rate-limiting.js';
import { createRedisLimiter } from '../src/ratelimit/redis/index.js';
import { privateRedisClient, writePlansFile } from './support/index.js';

// Issue 29, point 3: an account named like one of the gateway's own subjects (`op:<operationId>`,
// `ip:<address>`, `usage:<jti>`) has counters of its own, in process and in Redis.

const NOW = 1_800_000_000_000;
const plansFile = writePlansFile({
  plans: { pro: { minute: 300, day: 10_000 } },
  anonymous: { minute: 30, day: 1000 },
  operations: { listPets: { minute: 3, day: 100 } },
});
const holder = (subject: string, keyId = `${subject}-key`): KeyHolder => ({ subject, keyId, plan: 'pro' });

async function spend(times: number, decide: () => Promise<{ allowed: boolean }>): Promise<number> {
  let admitted = 0;
  for (let i = 0; i < times; i++) if ((await decide()).allowed) admitted += 1;
  return admitted;
}

/** The three collisions of the issue, against one limiter each (`make` gives a fresh one). */
function collisions(make: (name: string) => Limiter): void {
  const limitsOf = (name: string) => createRateLimiting(make(name), createPlans(plansFile));

  test('an account op:<operationId> does not spend that operation’s ceiling, nor the ceiling its counters', async () => {
    const limits = limitsOf('op');
    const named = holder('op:listPets');
    assert.equal(await spend(5, () => limits.forIdentity(named)), 5, 'the account’s own plan admits 5');
    assert.equal(await spend(5, () => limits.forIdentity(holder('acme'), 'listPets')), 3, 'the ceiling is whole for acme');
    const own = await limits.forIdentity(named);
    assert.equal(own.windows[0]?.remaining, 300 - 6, 'the ceiling’s 3 are not on the account');
  });

  test('an account ip:<address> does not share that address’s anonymous limit', async () => {
    const limits = limitsOf('ip');
    assert.equal(await spend(40, () => limits.forIdentity(holder('ip:203.0.113.9'))), 40);
    const anonymous = await limits.forAnonymous('203.0.113.9');
    assert.equal(anonymous.allowed, true);
    assert.equal(anonymous.windows[0]?.remaining, 29);
  });

  test('an account usage:<jti> does not spend that key’s usage limit', async () => {
    const limits = limitsOf('usage');
    const other = holder('acme', 'k-123');
    assert.equal(await spend(70, () => limits.forIdentity(holder('usage:k-123'))), 70);
    const usage = await limits.forUsage(other);
    assert.equal(usage.allowed, true);
    assert.equal(usage.windows[0]?.remaining, 59);
  });

  test('an account named like an escaped one (acct:…) has counters of its own too', async () => {
    const limits = limitsOf('acct');
    assert.equal(await spend(10, () => limits.forIdentity(holder('acct:op:listPets'))), 10);
    const escaped = await limits.forIdentity(holder('op:listPets'));
    assert.equal(escaped.windows[0]?.remaining, 299);
  });

  test('an ordinary account keeps the subject of releases before: its counters carry over', async () => {
    const limiter = make('plain');
    const plans = createPlans(plansFile);
    const policy = plans.forIdentity(holder('acme'));
    // What a release before this one charged, under the account's name as it is.
    for (let i = 0; i < 7; i++) await limiter.check({ subject: 'acme', keyId: 'acme-key', policy });
    const decision = await createRateLimiting(limiter, plans).forIdentity(holder('acme'));
    assert.equal(decision.windows[0]?.remaining, 300 - 8);
  });
}

test('subjects: an ordinary account is its name, a reserved prefix is escaped', () => {
  assert.equal(accountSubject('acme'), 'acme');
  assert.equal(accountSubject('ops:team'), 'ops:team');
  assert.equal(accountSubject('op:listPets'), 'acct:op:listPets');
  assert.equal(accountSubject('ip:10.0.0.1'), 'acct:ip:10.0.0.1');
  assert.equal(accountSubject('usage:k1'), 'acct:usage:k1');
  assert.equal(accountSubject('acct:x'), 'acct:acct:x');
  assert.equal(limitSubject(accountKey(holder('op:listPets'))), 'acct:op:listPets');
});

describe('account subjects in process', () => {
  collisions(() => createMemoryLimiter({ now: () => NOW }));
});

describe('account subjects in Redis', { skip: redisSkipReason() }, () => {
  const redis = privateRedisClient();
  collisions((name) => createRedisLimiter(redis.client(), { prefix: `subjects-${name}`, now: () => NOW }));
});
