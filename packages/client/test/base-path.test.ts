import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { ServiceProcess } from '@animal-store/testkit';
import { createClient } from '../src/index.js';
import { createTestKeyring, startCore, startGatewayProcess } from './stack.js';

// The gateway may serve the API under any PUBLIC_BASE_PATH (`/`, `/v1`, `/api/pets`): the client
// takes each as its baseUrl, so no version segment is required of it.
const BASE_PATHS = [
  { publicBasePath: '/', baseUrl: (url: string) => `${url}/` },
  { publicBasePath: '/api/pets', baseUrl: (url: string) => `${url}/api/pets` },
];

for (const { publicBasePath, baseUrl } of BASE_PATHS) {
  describe(`the client against a real gateway with PUBLIC_BASE_PATH=${publicBasePath}`, () => {
    let core: ServiceProcess;
    let gateway: ServiceProcess;
    let key: string;

    before(async () => {
      const keyring = await createTestKeyring();
      core = await startCore();
      gateway = await startGatewayProcess(core.url, { JWKS_FILE: keyring.files.jwks, PUBLIC_BASE_PATH: publicBasePath, UPSTREAM_BASE_PATH: '/v1' });
      key = (await keyring.issue({ plan: 'pro', sub: `base-path-${publicBasePath}` })).token;
    });
    after(async () => {
      await gateway?.stop();
      await core?.stop();
    });

    test('creates, reads, lists and asks usage under that base path', async () => {
      const client = createClient({ baseUrl: baseUrl(gateway.url), apiKey: key });
      const rex = await client.createPet({ name: 'Rex', categoryId: 1, status: 'pending' });
      assert.deepEqual(await client.getPet(rex.id), rex);
      assert.deepEqual(await client.listPets({ status: 'pending' }), [rex]);
      assert.equal((await client.usage()).plan, 'pro');
    });

    // The pets core writes `/v1/pets?cursor=…` in its next link whatever the public path; the
    // gateway rewrites it to the public one (docs/backend.md, links in the backend's answers).
    test('allPets follows the next links through every page', async () => {
      const client = createClient({ baseUrl: baseUrl(gateway.url), apiKey: key });
      const made = [];
      for (const name of ['Ada', 'Bo', 'Cy']) made.push(await client.createPet({ name, categoryId: 2, status: 'sold' }));
      const all = [];
      for await (const pet of client.allPets({ status: 'sold', limit: 2 })) all.push(pet);
      assert.deepEqual(all, made);
    });
  });
}

describe('the paths the client asks for, on a real node:http server', () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  let origin = '';

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const cases = [
    ['/', '/pets?limit=1'],
    ['', '/pets?limit=1'],
    ['/api/pets', '/api/pets/pets?limit=1'],
    ['/api/pets/', '/api/pets/pets?limit=1'],
    ['/v1', '/v1/pets?limit=1'],
    ['/v1?x=1#y', '/v1/pets?limit=1'],
  ] as const;
  for (const [path, expected] of cases) {
    test(`baseUrl ${path || '(origin only)'} asks ${expected}`, async () => {
      seen.length = 0;
      await createClient({ baseUrl: `${origin}${path}`, apiKey: 'k' }).listPets({ limit: 1 });
      assert.deepEqual(seen, [expected]);
    });
  }
});
