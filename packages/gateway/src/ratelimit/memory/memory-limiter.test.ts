import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryLimiter } from './memory-limiter.js';
import { BUCKETS_PER_WINDOW, MINUTE_MS, type Policy } from '../policy.js';

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

// Issue 29, point 10: the anonymous addresses' counters are a table of a bounded size, the address
// least recently seen forgotten first, and no account's counters are ever forgotten for it.
const ANONYMOUS: Policy = {
  ...FREE,
  name: 'anonymous',
  anonymous: true,
  windows: FREE.windows.map((w) => ({ ...w, limit: w.name === 'minute' ? 30 : w.limit })),
};
const fromAddress = (limiter: ReturnType<typeof createMemoryLimiter>, address: string) =>
  limiter.check({ subject: `ip:${address}`, keyId: undefined, policy: ANONYMOUS });

test('past maxAddresses, the address least recently seen is forgotten first', async () => {
  let now = 1_800_000_000_000;
  const limiter = createMemoryLimiter({ now: () => now, maxAddresses: 3 });
  for (const address of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
    for (let i = 0; i < 5; i++) await fromAddress(limiter, address);
    now += 10;
  }
  await fromAddress(limiter, '10.0.0.1'); // seen again: now the most recent
  now += 10;
  await fromAddress(limiter, '10.0.0.4'); // the table is full: 10.0.0.2 goes
  assert.equal(limiter.addresses(), 3);
  assert.equal((await fromAddress(limiter, '10.0.0.1')).windows[0]?.remaining, 30 - 7, '10.0.0.1 kept its counters');
  assert.equal((await fromAddress(limiter, '10.0.0.3')).windows[0]?.remaining, 30 - 6, '10.0.0.3 kept its counters');
  // 10.0.0.4 is now the least recently seen; 10.0.0.2 comes back with a fresh budget and evicts it.
  assert.equal((await fromAddress(limiter, '10.0.0.2')).windows[0]?.remaining, 30 - 1, '10.0.0.2 was forgotten');
  assert.equal((await fromAddress(limiter, '10.0.0.4')).windows[0]?.remaining, 30 - 1, '10.0.0.4 was forgotten next');
  assert.equal(limiter.addresses(), 3);
});

test('a flood of addresses never evicts an account, a usage limit or a ceiling', async () => {
  const limiter = createMemoryLimiter({ now: () => 1_800_000_000_000, maxAddresses: 50 });
  const ceiling = { subject: 'op:listPets', policy: { ...FREE, name: 'listPets' } };
  assert.equal(await admitted(limiter, 'acme', 10), 10);
  await limiter.check({ subject: 'bob', keyId: undefined, policy: FREE, layers: [ceiling] });
  for (let i = 0; i < 5_000; i++) await fromAddress(limiter, `198.51.${i >> 8}.${i & 255}`);
  assert.equal(limiter.addresses(), 50);
  assert.equal(limiter.size(), 53, 'acme, bob and the ceiling, and 50 addresses');
  assert.equal((await limiter.check({ subject: 'acme', keyId: undefined, policy: FREE })).windows[0]?.remaining, 60 - 11);
  const bob = await limiter.check({ subject: 'bob', keyId: undefined, policy: FREE, layers: [ceiling] });
  assert.equal(bob.windows.find((w) => w.layer === 'listPets' && w.name === 'minute')?.remaining, 60 - 2);
});

test('a limited address stays limited while the table has room for it', async () => {
  let now = 1_800_000_000_000;
  const limiter = createMemoryLimiter({ now: () => now, maxAddresses: 1000 });
  for (let i = 0; i < 30; i++) await fromAddress(limiter, '203.0.113.5');
  assert.equal((await fromAddress(limiter, '203.0.113.5')).allowed, false);
  for (let i = 0; i < 998; i++) await fromAddress(limiter, `198.18.${i >> 8}.${i & 255}`);
  now += 1000;
  assert.equal((await fromAddress(limiter, '203.0.113.5')).allowed, false, '999 addresses of 1,000: still refused');
});
