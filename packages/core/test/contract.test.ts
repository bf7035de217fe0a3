import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { buildOpenApiDocument } from '../src/openapi/index.js';
import { assertError, nextLink, postPet, startCore, walkIds, type RunningCore, type StoreKind } from './helpers.js';
import { assertMatchesSchema } from './openapi-schemas.js';

const redisSkip = redisSkipReason();

for (const kind of ['memory', 'redis'] as const satisfies StoreKind[]) {
  describe(`core contract, ${kind} store`, { skip: kind === 'redis' ? redisSkip : false }, () => {
    let redis: RedisServer | undefined;
    let core: RunningCore;
    let url: string;

    before(async () => {
      if (kind === 'redis') redis = await startRedis();
      core = await startCore(kind, { redisUrl: redis?.url });
      url = core.url;
    });
    after(async () => {
      await core?.close();
      await redis?.close();
    });

    test('an empty catalogue lists as an empty array', async () => {
      const res = await fetch(`${url}/v1/pets`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.deepEqual(await res.json(), []);
      assert.equal(res.headers.get('link'), null);
    });

    test('createPet answers 201 with the Pet and its Location; getPet returns it', async () => {
      const res = await postPet(url, { name: 'Rex', categoryId: 7, status: 'available' });
      assert.equal(res.status, 201);
      const pet = (await res.json()) as { id: number };
      assertMatchesSchema('Pet', pet);
      assert.deepEqual(pet, { id: pet.id, name: 'Rex', categoryId: 7, status: 'available' });
      assert.equal(res.headers.get('location'), `/v1/pets/${pet.id}`);

      const got = await fetch(`${url}${res.headers.get('location')}`);
      assert.equal(got.status, 200);
      assert.deepEqual(await got.json(), pet);
    });

    test('status is optional, and absent from a pet created without it', async () => {
      const res = await postPet(url, { name: 'Tom', categoryId: 2 });
      assert.equal(res.status, 201);
      const pet = (await res.json()) as Record<string, unknown>;
      assert.deepEqual(Object.keys(pet), ['id', 'name', 'categoryId']);
    });

    test('ids are unique and increase with creation order', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push(((await (await postPet(url, { name: `p${i}`, categoryId: 1 })).json()) as { id: number }).id);
      assert.deepEqual(
        [...ids].sort((a, b) => a - b),
        ids,
      );
      assert.equal(new Set(ids).size, ids.length);
    });

    test('listPets: default page of 20, Link to the next page, pages in id order', async () => {
      for (let i = 0; i < 25; i++) await postPet(url, { name: `bulk${i}`, categoryId: 3, status: 'pending' });
      const first = await fetch(`${url}/v1/pets`);
      const page = (await first.json()) as { id: number }[];
      assertMatchesSchema('Pets', page);
      assert.equal(page.length, 20);
      const next = nextLink(first);
      assert.ok(next?.startsWith('/v1/pets?limit=20&cursor='), next);
      const ids = await walkIds(url, '/v1/pets?limit=20');
      assert.deepEqual(
        [...ids].sort((a, b) => a - b),
        ids,
      );
      assert.equal(new Set(ids).size, ids.length);
    });

    test('listPets: limit and status filter, kept in the next link', async () => {
      const res = await fetch(`${url}/v1/pets?status=pending&limit=10`);
      const pets = (await res.json()) as { status: string }[];
      assert.equal(pets.length, 10);
      assert.ok(pets.every((pet) => pet.status === 'pending'));
      assert.match(nextLink(res) ?? '', /^\/v1\/pets\?limit=10&status=pending&cursor=[A-Za-z0-9_-]+$/);
      const all = await walkIds(url, '/v1/pets?status=pending&limit=10');
      assert.equal(all.length, 25);
    });

    test('listPets: limit=100 and limit=1 are accepted', async () => {
      assert.equal(((await (await fetch(`${url}/v1/pets?limit=1`)).json()) as unknown[]).length, 1);
      const res = await fetch(`${url}/v1/pets?limit=100`);
      assert.equal(res.status, 200);
      assert.ok(((await res.json()) as unknown[]).length > 20);
    });

    test('a page walk sees every pet exactly once while pets are being created', async () => {
      const before = await walkIds(url, '/v1/pets?limit=100');
      const seen: number[] = [];
      let path: string | undefined = '/v1/pets?limit=7';
      while (path !== undefined) {
        const res: Response = await fetch(`${url}${path}`);
        seen.push(...((await res.json()) as { id: number }[]).map((pet) => pet.id));
        await postPet(url, { name: 'during walk', categoryId: 9 });
        path = nextLink(res);
      }
      assert.equal(new Set(seen).size, seen.length, 'no pet twice');
      for (const id of before) assert.ok(seen.includes(id), `pet ${id} missed`);
    });

    test('a tampered or foreign cursor is a 400, never a 500', async () => {
      const first = await fetch(`${url}/v1/pets?limit=2`);
      const cursor = new URL(`http://x${nextLink(first)}`).searchParams.get('cursor') ?? '';
      for (const bad of [
        `${cursor}x`,
        cursor.slice(1),
        'AAAA',
        Buffer.from('after:-1').toString('base64url'),
        Buffer.from('after:99999999999999999').toString('base64url'),
        '%00',
        '....',
      ]) {
        await assertError(await fetch(`${url}/v1/pets?cursor=${encodeURIComponent(bad)}`), 400, 'invalid_cursor');
      }
    });

    test('getPet: unknown int64 ids are 404, ids that are not int64 are 400', async () => {
      for (const id of ['999999999', '0', '-1', '9223372036854775807', '9007199254740993']) {
        await assertError(await fetch(`${url}/v1/pets/${id}`), 404, 'pet_not_found');
      }
      for (const id of ['abc', '1.5', '9223372036854775808', '-9223372036854775809', '1e3', '%31', '0x10', '']) {
        const res = await fetch(`${url}/v1/pets/${id}`);
        if (id === '') await assertError(res, 404, 'not_found');
        else await assertError(res, 400, 'invalid_pet_id');
      }
    });

    test('Idempotency-Key: a retry replays the first 201 and creates nothing', async () => {
      const countBefore = (await walkIds(url, '/v1/pets?limit=100')).length;
      const body = { name: 'Once', categoryId: 4, status: 'sold' };
      const first = await postPet(url, body, { 'idempotency-key': 'create-once-1' });
      assert.equal(first.status, 201);
      const pet = await first.json();
      const retry = await postPet(url, { status: 'sold', categoryId: 4, name: 'Once' }, { 'idempotency-key': 'create-once-1' });
      assert.equal(retry.status, 201);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.equal(retry.headers.get('location'), first.headers.get('location'));
      assert.deepEqual(await retry.json(), pet);
      assert.equal((await walkIds(url, '/v1/pets?limit=100')).length, countBefore + 1);
    });

    test('Idempotency-Key: the same key with another body is refused with 422', async () => {
      assert.equal((await postPet(url, { name: 'A', categoryId: 1 }, { 'idempotency-key': 'k-mismatch' })).status, 201);
      await assertError(await postPet(url, { name: 'B', categoryId: 1 }, { 'idempotency-key': 'k-mismatch' }), 422, 'idempotency_key_reused');
    });

    test('Idempotency-Key: keys are scoped to the account the gateway names', async () => {
      const a = await postPet(url, { name: 'A', categoryId: 1 }, { 'idempotency-key': 'shared', 'x-api-subject': 'acme' });
      const b = await postPet(url, { name: 'A', categoryId: 1 }, { 'idempotency-key': 'shared', 'x-api-subject': 'globex' });
      assert.equal(a.status, 201);
      assert.equal(b.status, 201);
      assert.equal(b.headers.get('idempotent-replayed'), null);
      assert.notEqual(((await a.json()) as { id: number }).id, ((await b.json()) as { id: number }).id);
    });

    test('concurrent retries with one Idempotency-Key create one pet', async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, () => postPet(url, { name: 'Race', categoryId: 5 }, { 'idempotency-key': 'race-1' })));
      const ids = new Set(await Promise.all(answers.map(async (res) => ((await res.json()) as { id: number }).id)));
      assert.equal(ids.size, 1);
      assert.equal(answers.filter((res) => res.headers.get('idempotent-replayed') === null).length, 1);
    });

    test('unknown paths are 404 and wrong methods 405 with Allow', async () => {
      await assertError(await fetch(`${url}/v1/dogs`), 404, 'not_found');
      await assertError(await fetch(`${url}/v1/pets/`), 404, 'not_found');
      await assertError(await fetch(`${url}/pets`), 404, 'not_found');
      const del = await fetch(`${url}/v1/pets`, { method: 'DELETE' });
      assert.equal(del.headers.get('allow'), 'GET, POST, HEAD');
      await assertError(del, 405, 'method_not_allowed');
      const put = await fetch(`${url}/v1/pets/1`, { method: 'PUT', body: '{}' });
      assert.equal(put.headers.get('allow'), 'GET, HEAD');
      await assertError(put, 405, 'method_not_allowed');
    });

    test('HEAD answers as GET does, without the body', async () => {
      const get = await fetch(`${url}/v1/pets?limit=2`);
      const body = await get.text();
      const head = await fetch(`${url}/v1/pets?limit=2`, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(body)));
      assert.equal(head.headers.get('link'), get.headers.get('link'));
      // Over a raw socket: fetch would hide any body bytes a HEAD answer carried.
      const { port } = new URL(url);
      const raw = await new Promise<string>((resolve, reject) => {
        let text = '';
        const socket = connect(Number(port), '127.0.0.1', () => socket.write('HEAD /v1/pets?limit=2 HTTP/1.1\r\nHost: core\r\nConnection: close\r\n\r\n'));
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      assert.match(raw, /^HTTP\/1\.1 200 /);
      assert.ok(raw.endsWith('\r\n\r\n'), `nothing after the headers: ${JSON.stringify(raw.slice(-40))}`);
      assert.equal((await fetch(`${url}/v1/pets/999999`, { method: 'HEAD' })).status, 404);
    });

    test('GET /v1/store/orders is a 501 not_implemented, as the document says', async () => {
      await assertError(await fetch(`${url}/v1/store/orders`), 501, 'not_implemented');
    });

    test('GET /v1/openapi.json serves the interface document', async () => {
      const res = await fetch(`${url}/v1/openapi.json`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), buildOpenApiDocument());
    });

    test('/healthz and /readyz answer without credentials', async () => {
      assert.deepEqual(await (await fetch(`${url}/healthz`)).json(), { status: 'ok' });
      const ready = await fetch(`${url}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), { status: 'ready' });
    });
  });
}
