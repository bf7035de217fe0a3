import assert from 'node:assert/strict';
import { writePlansFile } from '@animal-store/gateway/testing';
import { after, before, describe, test } from 'node:test';
import { type ServiceProcess } from '@animal-store/testkit';
import { ApiError, createClient, type DeprecationNotice } from '../src/index.js';
import { createTestKeyring, startCore, startGateway, startGatewayProcess, startSlowFirstCreate, type SlowFirstCreate } from './stack.js';

type Keyring = Awaited<ReturnType<typeof createTestKeyring>>;

describe('the client against the real gateway and core processes', () => {
  let keyring: Keyring;
  let core: ServiceProcess;
  let gateway: ServiceProcess;
  let key: string;

  before(async () => {
    keyring = await createTestKeyring();
    core = await startCore();
    gateway = await startGatewayProcess(core.url, { JWKS_FILE: keyring.files.jwks });
    key = (await keyring.issue({ plan: 'pro', sub: 'client-basics' })).token;
  });
  after(async () => {
    await gateway?.stop();
    await core?.stop();
  });

  test('creates, pages through every pet, and reads the rate-limit headers', async () => {
    const client = createClient({ baseUrl: `${gateway.url}/v1`, apiKey: key });
    const created = [];
    for (const name of ['Ada', 'Bo', 'Cy', 'Di', 'Ed']) created.push(await client.createPet({ name, categoryId: 3, status: 'sold' }));
    assert.deepEqual(
      created.map((pet) => pet.name),
      ['Ada', 'Bo', 'Cy', 'Di', 'Ed'],
    );
    const page = await client.listPets({ status: 'sold', limit: 2 });
    assert.equal(page.length, 2);
    const all = [];
    for await (const pet of client.allPets({ status: 'sold', limit: 2 })) all.push(pet);
    assert.deepEqual(all, created);
    const state = client.lastRateLimit;
    assert.equal(state?.limit, 300);
    assert.ok(state !== undefined && state.remaining < 300 && state.resetAt > Date.now() / 1000);
  });

  test('getPet tells onDeprecation once; a missing pet is an ApiError', async () => {
    const notices: DeprecationNotice[] = [];
    const client = createClient({ baseUrl: `${gateway.url}/v1`, apiKey: key, onDeprecation: (notice) => notices.push(notice) });
    const pet = await client.createPet({ name: 'Old', categoryId: 1 });
    assert.deepEqual(await client.getPet(pet.id), pet);
    await assert.rejects(client.getPet(987654321), (error: ApiError) => error instanceof ApiError && error.status === 404 && error.code === 'pet_not_found');
    assert.equal(notices.length, 1);
    assert.equal(notices[0]?.operation, 'getPet');
    assert.equal(notices[0]?.sunset?.toISOString(), '2030-12-05T00:00:00.000Z');
    assert.equal(notices[0]?.link, `${gateway.url}/docs/deprecations`);
    assert.equal(notices[0]?.successor, `${gateway.url}/v1/pets?status=available`);
  });

  test('usage() reads the plan from the gateway without charging it', async () => {
    const { token } = await keyring.issue({ plan: 'free', sub: 'client-usage', ttlMs: 86_400_000 });
    const client = createClient({ baseUrl: `${gateway.url}/v1`, apiKey: token });
    const before = await client.usage();
    assert.equal(before.plan, 'free');
    assert.deepEqual([before.windows.minute?.limit, before.windows.minute?.remaining], [60, 60]);
    assert.equal(before.ban, null);
    assert.ok(before.keyExpiresAt !== null && before.keyExpiresAt > Date.now() / 1000);
    assert.equal((await client.usage()).windows.minute?.remaining, 60, 'asking twice charged nothing');
    await client.listPets();
    assert.equal((await client.usage()).windows.minute?.remaining, 59);
    assert.deepEqual(client.lastRateLimit?.remaining, 59);
  });

  test('a bad key is a 401 ApiError, not retried', async () => {
    const client = createClient({ baseUrl: `${gateway.url}/v1`, apiKey: `${key}x` });
    await assert.rejects(client.listPets(), (error: ApiError) => error.status === 401 && error.code === 'unauthorized');
  });
});

describe('a create retried through a 504 makes exactly one pet', () => {
  let keyring: Keyring;
  let core: ServiceProcess;
  let slow: SlowFirstCreate;
  let gateway: ServiceProcess;

  before(async () => {
    keyring = await createTestKeyring();
    core = await startCore();
  });
  after(async () => {
    await gateway?.stop();
    await slow?.close();
    await core?.stop();
  });

  const through504 = async (sub: string) => {
    // The first create reaches the core only after the gateway gave up on it (504).
    await gateway?.stop();
    await slow?.close();
    slow = await startSlowFirstCreate(core.url, 800);
    gateway = await startGatewayProcess(slow.url, { JWKS_FILE: keyring.files.jwks, UPSTREAM_TIMEOUT_MS: '300' });
    return (await keyring.issue({ plan: 'pro', sub })).token;
  };
  const petsNamed = async (key: string, name: string) => {
    const client = createClient({ baseUrl: `${gateway.url}/v1`, apiKey: key });
    const names = [];
    for await (const pet of client.allPets({ limit: 100 })) if (pet.name === name) names.push(pet);
    return names;
  };

  test('with the client: a 504, a retry with the same Idempotency-Key, one pet', async () => {
    const key = await through504('retry-504');
    const gateway504s: number[] = [];
    const client = createClient({
      baseUrl: `${gateway.url}/v1`,
      apiKey: key,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        gateway504s.push(res.status);
        return res;
      },
    });
    const pet = await client.createPet({ name: 'Once', categoryId: 9 });
    assert.equal(gateway504s[0], 504, 'the first attempt timed out at the gateway');
    assert.equal(gateway504s.at(-1), 201);
    await slow.firstCreateDone;
    const creates = slow.seen.filter((request) => request.method === 'POST');
    assert.ok(creates.length >= 2);
    assert.equal(new Set(creates.map((request) => request.headers['idempotency-key'])).size, 1);
    assert.deepEqual(await petsNamed(key, 'Once'), [pet]);
  });

  test('without an Idempotency-Key, the same retry makes two pets (what the client avoids)', async () => {
    const key = await through504('naive-504');
    const send = () =>
      fetch(`${gateway.url}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{"name":"Twice","categoryId":9}',
      });
    assert.equal((await send()).status, 504);
    assert.equal((await send()).status, 201);
    await slow.firstCreateDone;
    assert.equal((await petsNamed(key, 'Twice')).length, 2);
  });
});

describe('a 429 storm: the client is never banned where a naive loop is', () => {
  // The gateway in this process on a clock the client's waits move forward: minutes pass in
  // milliseconds. The core is a real process.
  let core: ServiceProcess;
  let keyring: Keyring;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let clock = Date.now();

  before(async () => {
    keyring = await createTestKeyring();
    core = await startCore();
    const plans = writePlansFile({ plans: { free: { minute: 10, day: 1000 } }, ban: { strikes: 10, strikeWindowSeconds: 60, banSeconds: 300 } });
    gateway = await startGateway({ UPSTREAM_URL: core.url, JWKS_FILE: keyring.files.jwks, PLANS_FILE: plans }, () => clock);
  });
  after(async () => {
    await gateway?.close();
    await core?.stop();
  });

  test('a naive loop that ignores Retry-After gets its key banned', async () => {
    const { token } = await keyring.issue({ plan: 'free', sub: 'naive' });
    const codes: string[] = [];
    for (let i = 0; i < 40; i += 1) {
      const res = await fetch(`${gateway.url}/v1/pets`, { headers: { authorization: `Bearer ${token}` } });
      codes.push(res.status === 200 ? 'ok' : ((await res.json()) as { code: string }).code);
    }
    assert.equal(codes.filter((code) => code === 'ok').length, 10);
    assert.ok(codes.includes('key_banned'), codes.join(' '));
  });

  test('four loops of the client on one key, 120 calls against 10 a minute: every call succeeds, no ban', async () => {
    const { token } = await keyring.issue({ plan: 'free', sub: 'polite' });
    const statuses: number[] = [];
    const client = createClient({
      baseUrl: `${gateway.url}/v1`,
      apiKey: token,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        statuses.push(res.status);
        return res;
      },
      // Waiting moves the gateway's clock: the wait is real for the gateway, instant for the test.
      sleep: async (ms) => {
        clock += ms;
      },
      retry: { maxAttempts: 10 },
    });
    const loop = async () => {
      for (let i = 0; i < 30; i += 1) await client.listPets({ limit: 1 });
    };
    await Promise.all([loop(), loop(), loop(), loop()]);
    assert.equal(statuses.filter((status) => status === 200).length, 120);
    assert.ok(statuses.filter((status) => status === 429).length > 0, 'the storm did hit the limit');
    const usageProbe = await fetch(`${gateway.url}/v1/pets`, { headers: { authorization: `Bearer ${token}` } });
    assert.notEqual(((await usageProbe.json()) as { code?: string }).code, 'key_banned');
  });
});
