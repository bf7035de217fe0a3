import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { isCanonicalPath } from './canonical-path.js';
import { loadOperations } from './load-operations.js';
import { createRouteTable } from './route-table.js';

const DOCUMENT = fileURLToPath(new URL('../../../core/openapi.json', import.meta.url));
const match = createRouteTable(loadOperations(DOCUMENT));

test('the route table is built from the interface document', () => {
  const ops = loadOperations(DOCUMENT).map((op) => `${op.method} ${op.template} ${op.operationId} auth=${op.requiresAuth}`);
  assert.deepEqual(ops, [
    'GET /v1/pets listPets auth=true',
    'POST /v1/pets createPet auth=true',
    'GET /v1/pets/{petId} getPet auth=true',
    'GET /v1/store/orders listStoreOrders auth=true',
  ]);
  const getPet = loadOperations(DOCUMENT).find((op) => op.operationId === 'getPet');
  assert.equal(getPet?.deprecation?.sunset?.toISOString(), '2030-12-05T00:00:00.000Z');
});

const CASES: [method: string, path: string, expected: string][] = [
  ['GET', '/v1/pets', 'listPets'],
  ['POST', '/v1/pets', 'createPet'],
  ['GET', '/v1/pets/42', 'getPet 42'],
  ['GET', '/v1/pets/abc', 'getPet abc'],
  ['GET', '/v1/store/orders', 'listStoreOrders'],
  ['DELETE', '/v1/pets', '405 GET, POST, HEAD'],
  ['POST', '/v1/pets/1', '405 GET, HEAD'],
  ['HEAD', '/v1/pets', 'listPets'],
  ['HEAD', '/v1/pets/7', 'getPet 7'],
  ['GET', '/v1/pets/', '404'],
  ['GET', '/v1/pets/1/x', '404'],
  ['GET', '//v1/pets', '404'],
  ['GET', '/v1//pets', '404'],
  ['GET', '/v1/pets/../store/orders', '404'],
  ['GET', '/v1/pets/..', '404'],
  ['GET', '/v1/pets/%2e%2e', '404'],
  ['GET', '/v1/pets/%2E%2e/x', '404'],
  ['GET', '/v1/pets/.', '404'],
  ['GET', '/v1/pets/..;/store/orders', '404'],
  ['GET', '/v1/pets/.;x', '404'],
  ['GET', '/v1/pets/%2e%2e%3b', '404'],
  ['GET', '/v1/./pets', '404'],
  ['GET', '/v1/pets%2f1', '404'],
  ['GET', '/v1/pets/1%2f..', '404'],
  ['GET', '/v1/pets\\1', '404'],
  ['GET', '/V1/PETS', '404'],
  ['GET', '/v1/Pets', '404'],
  ['GET', '/v1/pets/%00', '404'],
  ['GET', 'v1/pets', '404'],
  ['GET', '/pets', '404'],
  ['GET', '/v2/pets', '404'],
];

for (const [method, path, expected] of CASES) {
  test(`${method} ${path} → ${expected}`, () => {
    const found = match(method, path);
    const got =
      found.kind === 'operation'
        ? [found.operation.operationId, ...found.params].join(' ')
        : found.kind === 'method_not_allowed'
          ? `405 ${found.allow}`
          : '404';
    assert.equal(got, expected);
  });
}

test('canonical paths: the root and plain segments only', () => {
  assert.equal(isCanonicalPath('/'), true);
  assert.equal(isCanonicalPath('/a/b.c/d..e'), true, 'dots inside a segment are fine');
  assert.equal(isCanonicalPath('/a/%2e'), false);
  assert.equal(isCanonicalPath('/a/b c'), false);
});
