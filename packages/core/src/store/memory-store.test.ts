import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryStore } from './memory-store.js';

const token = (key: string, fingerprint = 'f1') => ({ scope: 'acme', key, fingerprint });

test('an idempotency record lasts exactly its TTL (injected clock)', async () => {
  let now = 1_000_000;
  const store = createMemoryStore({ idempotencyTtlSeconds: 60, now: () => now });
  const first = await store.create({ name: 'A', categoryId: 1 }, token('k'));
  assert.equal(first.kind, 'created');

  now += 59_999;
  const replay = await store.create({ name: 'A', categoryId: 1 }, token('k'));
  assert.equal(replay.kind, 'replayed');
  assert.equal((await store.create({ name: 'B', categoryId: 1 }, token('k', 'f2'))).kind, 'key_reused');

  now += 1;
  const afterTtl = await store.create({ name: 'A', categoryId: 1 }, token('k'));
  assert.equal(afterTtl.kind, 'created');
  assert.ok(afterTtl.kind === 'created' && first.kind === 'created' && afterTtl.pet.id > first.pet.id);
});

test('pages are keyset slices in id order, per status', async () => {
  const store = createMemoryStore({ idempotencyTtlSeconds: 60 });
  for (let i = 0; i < 10; i++) await store.create({ name: `p${i}`, categoryId: 1, status: i % 2 ? 'sold' : 'available' });
  const page = await store.list({ limit: 3, status: 'sold', afterId: 2 });
  assert.deepEqual(
    page.pets.map((pet) => pet.id),
    [4, 6, 8],
  );
  assert.equal(page.hasMore, true);
  const last = await store.list({ limit: 3, status: 'sold', afterId: 8 });
  assert.deepEqual(
    last.pets.map((pet) => pet.id),
    [10],
  );
  assert.equal(last.hasMore, false);
  assert.deepEqual((await store.list({ limit: 5, status: 'pending' })).pets, []);
});
