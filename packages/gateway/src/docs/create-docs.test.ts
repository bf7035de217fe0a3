import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { createDocs } from './create-docs.js';

// Long enough that compressing it pays (see the tiny document below for one that does not).
const document = { openapi: '3.1.0', info: { title: 'Animal Store', version: '1', description: 'Pets, as a service. '.repeat(20) }, paths: {} };
const docs = createDocs({ document, documentPath: '/v1/openapi.json', deprecationNotesUrl: '/docs/deprecations' });

test('the reference page: HTML that loads Redoc from the gateway only, under a CSP allowing nothing else', () => {
  const page = docs('GET', '/docs', undefined);
  assert.equal(page?.status, 200);
  assert.equal(page?.headers['content-type'], 'text/html; charset=utf-8');
  const html = page?.body?.toString() ?? '';
  assert.match(html, /<redoc spec-url="\/v1\/openapi\.json"/);
  assert.match(html, /<script src="\/docs\/redoc\.standalone\.js"><\/script>/);
  assert.match(html, /<a id="deprecation-notes" href="\/docs\/deprecations">/);
  assert.doesNotMatch(html, /https?:\/\//, 'nothing from another origin, no CDN');
  assert.match(page?.headers['content-security-policy'] ?? '', /default-src 'none'; script-src 'self';/);
  assert.equal(page?.headers['x-content-type-options'], 'nosniff');
});

test("the renderer is Redoc's standalone bundle, read from node_modules", () => {
  const bundle = docs('GET', '/docs/redoc.standalone.js', undefined);
  const file = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  assert.equal(bundle?.status, 200);
  assert.equal(bundle?.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.ok(bundle?.body?.equals(readFileSync(file)));
});

test('the document as JSON; HEAD without a body; If-None-Match answers 304; other paths are not docs', () => {
  const json = docs('GET', '/v1/openapi.json', undefined);
  assert.deepEqual(JSON.parse(json?.body?.toString() ?? ''), document);
  assert.equal(json?.headers['content-type'], 'application/json');
  const head = docs('HEAD', '/v1/openapi.json', undefined);
  assert.equal(head?.body, undefined);
  assert.equal(head?.headers['content-length'], json?.headers['content-length']);
  const etag = json?.headers.etag;
  assert.match(etag ?? '', /^"[A-Za-z0-9_-]{27}"$/);
  assert.deepEqual([docs('GET', '/v1/openapi.json', etag)?.status, docs('GET', '/v1/openapi.json', etag)?.body], [304, undefined]);
  // Issue 29 changed this: another method on a docs path is a 405 (see the test below), no longer "not docs".
  assert.equal(docs('POST', '/docs', undefined)?.status, 405);
  assert.equal(docs('GET', '/docs/other', undefined), undefined);
  assert.equal(docs('GET', '/docs/deprecations', undefined), undefined, 'the notes are the deprecation module’s');
});

const PATHS = ['/docs', '/docs/redoc.standalone.js', '/v1/openapi.json'];

test('another method than GET and HEAD on a docs path is a 405 naming GET and HEAD; other paths stay not docs', () => {
  for (const path of PATHS) {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE']) {
      assert.deepEqual(docs(method, path, undefined), { status: 405, headers: { allow: 'GET, HEAD' }, body: undefined }, `${method} ${path}`);
    }
  }
  assert.equal(docs('POST', '/docs/other', undefined), undefined);
  assert.equal(docs('POST', '/docs/deprecations', undefined), undefined);
});

const decode = { br: brotliDecompressSync, gzip: gunzipSync } as const;

test('br and gzip on Accept-Encoding, each compressed once: smaller, the same bytes decoded, their own ETag and length, Vary on every answer', async () => {
  const sizes: string[] = [];
  for (const path of PATHS) {
    const plain = docs('GET', path, undefined);
    assert.equal(plain?.headers.vary, 'Accept-Encoding', path);
    assert.equal(plain?.headers['content-encoding'], undefined);
    for (const coding of ['br', 'gzip'] as const) {
      const first = await docs('GET', path, undefined, `${coding}`);
      assert.equal(first?.status, 200);
      assert.equal(first?.headers['content-encoding'], coding, `${path} ${coding}`);
      assert.equal(first?.headers.vary, 'Accept-Encoding');
      assert.equal(first?.headers['content-type'], plain?.headers['content-type']);
      const body = first?.body ?? Buffer.alloc(0);
      assert.equal(first?.headers['content-length'], String(body.length));
      assert.ok(decode[coding](body).equals(plain?.body ?? Buffer.alloc(0)), `${path} ${coding} decodes to the same bytes`);
      assert.ok(body.length < (plain?.body?.length ?? 0));
      assert.equal(first?.headers.etag, `${plain?.headers.etag?.slice(0, -1)}-${coding}"`);
      // Made once: the next answer is immediate and sends the very same buffer.
      const again = docs('GET', path, undefined, coding);
      assert.ok(!(again instanceof Promise), 'kept, not compressed again');
      assert.equal(again?.body, first?.body);
      const head = docs('HEAD', path, undefined, coding);
      assert.ok(!(head instanceof Promise));
      assert.deepEqual([head?.body, head?.headers['content-length'], head?.headers['content-encoding']], [undefined, String(body.length), coding]);
      const notModified = docs('GET', path, first?.headers.etag, coding);
      assert.ok(!(notModified instanceof Promise));
      assert.deepEqual([notModified?.status, notModified?.body, notModified?.headers.vary], [304, undefined, 'Accept-Encoding']);
      // The identity ETag does not stand for the compressed bytes, nor the other way round.
      assert.equal((docs('GET', path, plain?.headers.etag, coding) as { status: number }).status, 200);
      assert.equal(docs('GET', path, first?.headers.etag)?.status, 200);
      sizes.push(`${path} ${coding} ${body.length}`);
    }
    sizes.push(`${path} raw ${plain?.body?.length}`);
  }
  console.log(`# ${sizes.join(', ')}`);
});

test('the coding follows the weights: q=0 refuses one, * stands for the others, br wins a tie; otherwise identity', async () => {
  const codingFor = async (acceptEncoding: string | undefined) =>
    (await docs('GET', '/v1/openapi.json', undefined, acceptEncoding))?.headers['content-encoding'];
  const cases: [string | undefined, string | undefined][] = [
    [undefined, undefined],
    ['', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['gzip, deflate, br, zstd', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['BR;Q=0, GZIP', 'gzip'],
    ['gzip;q=0, br;q=0', undefined],
    ['gzip;q=0.000', undefined],
    ['*;q=0', undefined],
    ['*', 'br'],
    ['*, br;q=0', 'gzip'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0.8, gzip;q=0.8', 'br'],
    ['x-gzip', 'gzip'],
    ['identity;q=0', undefined],
    ['br;q=2, gzip', 'gzip'],
    ['br;q=nonsense', undefined],
    [' br ; q=1 ', 'br'],
  ];
  for (const [header, expected] of cases) assert.equal(await codingFor(header), expected, String(header));
});

test('an asset that compression would not shrink is sent as it is, whatever the client accepts', async () => {
  const tiny = createDocs({ document: { openapi: '3.1.0', paths: {} }, documentPath: '/v1/openapi.json', deprecationNotesUrl: '/docs/deprecations' });
  const plain = tiny('GET', '/v1/openapi.json', undefined);
  for (const coding of ['br', 'gzip']) {
    const answer = await tiny('GET', '/v1/openapi.json', undefined, coding);
    assert.deepEqual([answer?.headers['content-encoding'], answer?.headers.etag, answer?.body], [undefined, plain?.headers.etag, plain?.body]);
  }
});

test('ETags match as If-None-Match lists them: in a list, weak, or *', () => {
  const etag = docs('GET', '/docs', undefined)?.headers.etag ?? '';
  for (const header of [`"x", ${etag}`, `W/${etag}`, '*']) assert.equal(docs('GET', '/docs', header)?.status, 304, header);
  assert.equal(docs('GET', '/docs', '"x"')?.status, 200);
});
