import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryLimiter } from './memory-limiter.js';
import { BUCKETS_PER_WINDOW, MINUTE_MS, type Policy } from './policy.js';

const FREE: Policy = {
  name: 'free',
  windows: [
    { name: 'minute', limit: 60, windowMs: MINUTE_MS, buckets: BUCKETS_PER_WINDOW },
    { name: 'day', limit: 1000, windowMs: 24 * 60 * MINUTE_MS, buckets: BUCKETS_PER_WINDOW },
  ],
  ban: undefined,
};

async function admitted(limiter: ReturnType<typeof createMemoryLimiter>, subject: string, tries: number): Promise<number> {
  let count = 0;
  for (let i = 0; i < tries; i++) if ((await limiter.check({ subject, keyId: undefined, policy: FREE })).allowed) count += 1;
  return count;
}

// The `local` fallback counts its share of what Redis had admitted before it admits anything.
test('a seeded limiter at half the plan admits half of what is left, not half the plan', async () => {
  let now = 1_800_000_000_000;
  const limiter = createMemoryLimiter({ now: () => now, share: 0.5 });
  limiter.seed(
    { subject: 'acme', keyId: undefined, policy: FREE },
    new Map([
      ['minute', 50],
      ['day', 50],
    ]),
  );
  assert.equal(await admitted(limiter, 'acme', 20), 5);
  // Seeding again with the same count adds nothing; a larger count tops it up.
  limiter.seed({ subject: 'acme', keyId: undefined, policy: FREE }, new Map([['minute', 50]]));
  assert.equal(await admitted(limiter, 'acme', 5), 0);
  // A minute later the seeded requests have left the window with the others.
  now += MINUTE_MS + 2000;
  assert.equal(await admitted(limiter, 'acme', 40), 30);
});

test('a seed rounds the share up, and never counts past the scaled limit', async () => {
  const limiter = createMemoryLimiter({ now: () => 1_800_000_000_000, share: 0.5 });
  limiter.seed({ subject: 'odd', keyId: undefined, policy: FREE }, new Map([['minute', 59]]));
  assert.equal(await admitted(limiter, 'odd', 5), 0, 'ceil(29.5) = 30 of 30');
  limiter.seed({ subject: 'over', keyId: undefined, policy: FREE }, new Map([['minute', 500]]));
  const decision = await limiter.check({ subject: 'over', keyId: undefined, policy: FREE });
  assert.equal(decision.allowed, false);
  assert.equal(decision.windows[0]?.remaining, 0);
  assert.ok(decision.retryAt !== undefined, 'still a Retry-After: the seeded requests leave the window');
});

test('an unseeded account gets the share of the plan', async () => {
  const limiter = createMemoryLimiter({ now: () => 1_800_000_000_000, share: 0.5 });
  assert.equal(await admitted(limiter, 'fresh', 40), 30);
});

test('seeding again with the same count adds nothing, and a larger count tops it up to its share', async () => {
  const limiter = createMemoryLimiter({ now: () => 1_800_000_000_000, share: 0.5 });
  const acme = { subject: 'again', keyId: undefined, policy: FREE };
  limiter.seed(acme, new Map([['minute', 20]]));
  limiter.seed(acme, new Map([['minute', 20]]));
  assert.equal(await admitted(limiter, 'again', 5), 5, 'the share counts 10 of 30: 20 left');
  // Its share of 40 is 20, and the window counts 15 (10 seeded, 5 admitted): 5 more are counted.
  limiter.seed(acme, new Map([['minute', 40]]));
  assert.equal(await admitted(limiter, 'again', 30), 10, '20 of 30 counted: 10 left');
});
