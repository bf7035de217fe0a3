import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryDir } from '@animal-store/testkit';
import { createPlans } from '../../plans/index.js';
import { createMemoryLimiter, createRateLimiting } from '../../ratelimit/index.js';
import { createKeyGuard, VERIFICATIONS_PER_SECOND } from './key-guard.js';

// Issue 29, point 10: the refused addresses the key guard remembers are bounded as the limiter's
// table is (RATE_LIMIT_MAX_ADDRESSES): a flood of addresses that each get refused stays bounded.
test('past maxRemembered refused addresses, the guard starts its memory again', async () => {
  const file = join(temporaryDir('gw-guard-'), 'plans.json');
  writeFileSync(
    file,
    JSON.stringify({
      plans: { free: { minute: 1, day: 1 }, pro: { minute: 1, day: 1 }, business: { minute: 1, day: 1 }, enterprise: { minute: 1, day: 1 } },
      anonymous: { minute: 1, day: 10 },
    }),
  );
  const now = () => 1_800_000_000_000;
  const limits = createRateLimiting(createMemoryLimiter({ now }), createPlans(file));
  const guard = createKeyGuard(limits, now, 3);
  const refuse = async (ip: string) => {
    await guard.decideAnonymous?.(ip);
    assert.equal((await guard.decideAnonymous?.(ip))?.allowed, false, ip);
  };
  const held = (ip: string) => {
    for (let i = 0; i < VERIFICATIONS_PER_SECOND; i++) guard.refusalOf(ip);
    return guard.refusalOf(ip) !== undefined;
  };
  for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) await refuse(ip);
  assert.equal(held('10.0.0.1'), true, 'remembered: its checks are spent');
  assert.equal(held('10.0.0.2'), true);
  await refuse('10.0.0.4'); // the fourth: the memory starts again with it
  assert.equal(guard.refusalOf('10.0.0.2'), undefined, 'forgotten: its checks begin again');
  assert.equal(held('10.0.0.4'), true);
});
