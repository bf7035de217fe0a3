import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestKeyring, type RecordingUpstream, type RunningGateway, startGateway, startRecordingUpstream } from './support/index.js';
import { buildEffectiveDocument } from '../src/openapi/index.js';

const CORE_DOCUMENT = fileURLToPath(new URL('../../core/openapi.json', import.meta.url));
const BUNDLE = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');

/** A GET as sent, its answer's bytes as received (fetch would decode them). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

describe('the API document and the reference page, served by the gateway without a key', () => {
  let upstream: RecordingUpstream;
  let gateway: RunningGateway;

  before(async () => {
    upstream = await startRecordingUpstream();
    const keyring = await createTestKeyring();
    gateway = await startGateway({ UPSTREAM_URL: upstream.url, JWKS_FILE: keyring.files.jwks, RATE_LIMITS: 'on' });
  });
  after(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  test("GET /v1/openapi.json is the backend's document plus the gateway's additions", async () => {
    const res = await fetch(`${gateway.url}/v1/openapi.json`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    const served = (await res.json()) as { paths: Record<string, unknown> };
    const expected = buildEffectiveDocument(JSON.parse(readFileSync(CORE_DOCUMENT, 'utf8')) as Record<string, unknown>, {
      deprecationDocUrl: '/docs/deprecations',
    });
    assert.deepEqual(served, expected);
    assert.ok('/usage' in served.paths);
    assert.equal(upstream.requests.length, 0, 'never asked of the backend');
  });

  test('it is cacheable: an ETag, and 304 for a client that has it; HEAD has no body', async () => {
    const first = await fetch(`${gateway.url}/v1/openapi.json`);
    await first.arrayBuffer();
    const etag = first.headers.get('etag') ?? '';
    assert.match(first.headers.get('cache-control') ?? '', /max-age=\d+/);
    const again = await fetch(`${gateway.url}/v1/openapi.json`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    const head = await fetch(`${gateway.url}/v1/openapi.json`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), first.headers.get('content-length'));
  });

  test('GET /docs is the reference page, its renderer served from the gateway under a strict CSP', async () => {
    const page = await fetch(`${gateway.url}/docs`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const html = await page.text();
    assert.match(html, /<redoc spec-url="\/v1\/openapi\.json"/);
    const bundle = await fetch(`${gateway.url}/docs/redoc.standalone.js`);
    assert.equal(bundle.status, 200);
    assert.ok((await bundle.arrayBuffer()).byteLength > 500_000);
    const notes = await fetch(`${gateway.url}/docs/deprecations`);
    assert.equal(notes.status, 200, 'the page links the deprecation notes, which are there');
    assert.match(await notes.text(), /getPet/);
  });

  test('the renderer travels compressed to a client that accepts br or gzip: 1.1 MB as about 270 kB', async () => {
    const raw = readFileSync(BUNDLE);
    for (const [acceptEncoding, coding, decode] of [
      ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
      ['gzip, br;q=0', 'gzip', gunzipSync],
    ] as const) {
      const answer = await rawGet(`${gateway.url}/docs/redoc.standalone.js`, { 'accept-encoding': acceptEncoding });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['content-encoding'], coding);
      assert.equal(answer.headers.vary, 'Accept-Encoding');
      assert.equal(answer.headers['content-length'], String(answer.body.length));
      assert.ok(answer.body.length < raw.length / 3, `${coding}: ${answer.body.length} bytes`);
      assert.ok(decode(answer.body).equals(raw));
    }
    const plain = await rawGet(`${gateway.url}/docs/redoc.standalone.js`, {});
    assert.deepEqual([plain.headers['content-encoding'], plain.body.length], [undefined, raw.length]);
  });

  test('another method on /docs, its renderer or the document is a 405 with Allow and the Error body, never the backend', async () => {
    for (const path of ['/docs', '/docs/redoc.standalone.js', '/v1/openapi.json']) {
      for (const method of ['POST', 'PUT', 'DELETE']) {
        const res = await fetch(`${gateway.url}${path}`, { method, headers: { 'x-request-id': 'docs-405' } });
        assert.equal(res.status, 405, `${method} ${path}`);
        assert.equal(res.headers.get('allow'), 'GET, HEAD');
        assert.equal(res.headers.get('x-request-id'), 'docs-405');
        assert.deepEqual(await res.json(), { code: 'method_not_allowed', message: `${method} is not allowed here; allowed: GET, HEAD.`, status: 405 });
      }
    }
    assert.equal(upstream.requests.length, 0);
  });
});
