import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { buildOpenApiDocument, OPENAPI_FILE, serializeDocument } from '../src/openapi/index.js';

interface Operation {
  operationId: string;
  deprecated?: boolean;
  'x-sunset'?: string;
  responses: Record<string, unknown>;
}
type Doc = {
  openapi: string;
  servers: { url: string; description: string }[];
  security: unknown;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
};

test('the checked-in openapi.json is exactly what the zod schemas generate (run `npm run openapi`)', () => {
  assert.equal(readFileSync(OPENAPI_FILE, 'utf8'), serializeDocument(buildOpenApiDocument()));
});

test('the document describes the whole interface', () => {
  const doc = buildOpenApiDocument() as unknown as Doc;
  assert.equal(doc.openapi, '3.1.0');
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
  );
  assert.deepEqual(operations, ['GET /pets listPets', 'POST /pets createPet', 'GET /pets/{petId} getPet', 'GET /store/orders listStoreOrders']);
  assert.deepEqual(
    doc.servers.map((s) => [s.url, s.description]),
    [
      ['https://{host}/v1', 'Production'],
      ['https://{host}/v1', 'Staging'],
    ],
  );
  assert.deepEqual(doc.security, [{ bearerAuth: [] }]);
  assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An API key issued by the operator.',
  });
  assert.deepEqual(Object.keys(doc.components.schemas).sort(), ['Error', 'NewPet', 'Pet', 'PetStatus', 'Pets']);

  const getPet = doc.paths['/pets/{petId}']?.get;
  assert.equal(getPet?.deprecated, true);
  assert.equal(getPet?.['x-sunset'], '2030-12-05T00:00:00Z');
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const op of Object.values(methods)) {
      assert.ok('401' in op.responses && '429' in op.responses, `${path} documents 401 and 429`);
      if (op.operationId !== 'getPet') assert.equal(op.deprecated, undefined);
    }
  }
  assert.ok('404' in (getPet?.responses ?? {}));
});
