import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { createDocs } from './create-docs.js';

const document = { openapi: '3.1.0', info: { title: 'Animal Store', version: '1' }, paths: {} };
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

test('the document as JSON; HEAD without a body; If-None-Match answers 304; other methods and paths are not docs', () => {
  const json = docs('GET', '/v1/openapi.json', undefined);
  assert.deepEqual(JSON.parse(json?.body?.toString() ?? ''), document);
  assert.equal(json?.headers['content-type'], 'application/json');
  const head = docs('HEAD', '/v1/openapi.json', undefined);
  assert.equal(head?.body, undefined);
  assert.equal(head?.headers['content-length'], json?.headers['content-length']);
  const etag = json?.headers.etag;
  assert.match(etag ?? '', /^"[A-Za-z0-9_-]{27}"$/);
  assert.deepEqual([docs('GET', '/v1/openapi.json', etag)?.status, docs('GET', '/v1/openapi.json', etag)?.body], [304, undefined]);
  assert.equal(docs('POST', '/docs', undefined), undefined);
  assert.equal(docs('GET', '/docs/other', undefined), undefined);
  assert.equal(docs('GET', '/docs/deprecations', undefined), undefined, 'the notes are the deprecation module’s');
});
