import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { REPOSITORY_ROOT, redisSkipReason, serviceCommand, startRedis, startService, type RedisServer, waitForReady } from '@animal-store/testkit';
import { postPet } from './helpers.js';

/** Starts a createPet whose headers reach the server; the body is sent by the returned function. */
function startSlowCreate(url: string, body: string): Promise<(rest: string) => Promise<{ status: number; body: string }>> {
  return new Promise((resolve, reject) => {
    let answer: Promise<{ status: number; body: string }> | undefined;
    const req = request(`${url}/v1/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
    });
    answer = new Promise((done, fail) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', fail);
    });
    req.on('error', reject);
    // "100 Continue" proves the server holds the request before the test goes on.
    req.on('continue', () =>
      resolve(async (rest) => {
        req.end(rest);
        return answer as Promise<{ status: number; body: string }>;
      }),
    );
    req.flushHeaders();
  });
}

describe('core process, redis store', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  before(async () => (redis = await startRedis({ args: ['--appendonly', 'yes'] })));
  after(async () => redis?.close());

  const env = () => ({ PORT: '0', HOST: '127.0.0.1', PETS_STORE: 'redis', PETS_REDIS_URL: redis.url, LOG_LEVEL: 'info' });

  test('SIGTERM finishes the request in flight, exits 0, and pets survive the restart', async () => {
    const first = await startService({ service: 'core', env: env() });
    await waitForReady(first.url);
    const created = (await (await postPet(first.url, { name: 'Durable', categoryId: 1 })).json()) as { id: number };

    const body = JSON.stringify({ name: 'In flight', categoryId: 2 });
    const finish = await startSlowCreate(first.url, body);
    const exitCode = first.stop('SIGTERM');
    const answer = await finish(body);
    assert.equal(answer.status, 201, answer.body);
    assert.equal(await exitCode, 0, first.output());
    assert.match(first.output(), /core draining/);

    const second = await startService({ service: 'core', env: env() });
    await waitForReady(second.url);
    try {
      const pets = (await (await fetch(`${second.url}/v1/pets`)).json()) as { id: number; name: string }[];
      assert.deepEqual(
        pets.map((pet) => pet.name),
        ['Durable', 'In flight'],
      );
      assert.equal(pets[0]?.id, created.id);
      const next = (await (await postPet(second.url, { name: 'After restart', categoryId: 3 })).json()) as { id: number };
      assert.ok(next.id > (pets[1]?.id ?? 0), 'ids keep increasing across restarts');
    } finally {
      assert.equal(await second.stop('SIGINT'), 0);
    }
  });

  test('with Redis down the core answers 503 store_unavailable and /readyz 503, then recovers', async () => {
    const core = await startService({ service: 'core', env: env() });
    try {
      await waitForReady(core.url);
      await redis.stop();
      const down = await postPet(core.url, { name: 'Lost?', categoryId: 1 });
      assert.equal(down.status, 503);
      assert.equal(((await down.json()) as { code: string }).code, 'store_unavailable');
      assert.equal(down.headers.get('retry-after'), '1');
      assert.equal((await fetch(`${core.url}/readyz`)).status, 503);
      assert.equal((await fetch(`${core.url}/healthz`)).status, 200);

      await redis.restart();
      await waitForReady(core.url);
      assert.equal((await postPet(core.url, { name: 'Back', categoryId: 1 })).status, 201);
    } finally {
      assert.equal(await core.stop(), 0);
    }
  });
});

describe('core process configuration', () => {
  test('an invalid configuration exits 2 and names every problem', () => {
    const { command, cwd } = serviceCommand(REPOSITORY_ROOT, 'core');
    const run = spawnSync(command[0] as string, command.slice(1), {
      cwd,
      env: { PATH: process.env.PATH, PORT: 'eighty', PETS_STORE: 'mongo', BODY_LIMIT_BYTES: '-5', LOG_LEVEL: 'loud' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(run.status, 2, run.stderr);
    for (const name of ['PORT', 'PETS_STORE', 'BODY_LIMIT_BYTES', 'LOG_LEVEL']) assert.match(run.stderr, new RegExp(`- ${name}: `));
  });
});
