import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { postPet, startCore, walkIds, type RunningCore } from './helpers.js';

const CREATES = 200;

async function createInParallel(urls: readonly string[]): Promise<number[]> {
  const answers = await Promise.all(
    Array.from({ length: CREATES }, (_, i) => postPet(urls[i % urls.length] as string, { name: `pet-${i}`, categoryId: 1 + (i % 5) })),
  );
  assert.ok(answers.every((res) => res.status === 201));
  return Promise.all(answers.map(async (res) => ((await res.json()) as { id: number }).id));
}

function assertAllOnce(created: readonly number[], walked: readonly number[]): void {
  assert.equal(new Set(created).size, CREATES, 'distinct ids');
  assert.equal(walked.length, CREATES, 'each pet listed once');
  assert.deepEqual(
    [...walked].sort((a, b) => a - b),
    [...created].sort((a, b) => a - b),
  );
}

describe('concurrent creates, memory store', () => {
  let core: RunningCore;
  before(async () => (core = await startCore('memory')));
  after(async () => core?.close());

  test(`${CREATES} parallel creates give ${CREATES} distinct pets, each listed once`, async () => {
    assertAllOnce(await createInParallel([core.url]), await walkIds(core.url, '/v1/pets?limit=37'));
  });
});

describe('concurrent creates, redis store shared by two core instances', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  let cores: RunningCore[];
  before(async () => {
    redis = await startRedis();
    const env = { PETS_REDIS_PREFIX: 'shared' };
    cores = [await startCore('redis', { redisUrl: redis.url, env }), await startCore('redis', { redisUrl: redis.url, env })];
  });
  after(async () => {
    for (const core of cores ?? []) await core.close();
    await redis?.close();
  });

  test(`${CREATES} parallel creates across both give distinct pets, listed once by either`, async () => {
    const created = await createInParallel(cores.map((core) => core.url));
    for (const core of cores) assertAllOnce(created, await walkIds(core.url, '/v1/pets?limit=37'));
  });
});
