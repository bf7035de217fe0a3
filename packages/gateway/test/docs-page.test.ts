import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromiumSkipReason, renderedDom, screenshot } from '@animal-store/testkit';
import { createDocs } from '../src/docs/index.js';
import { buildEffectiveDocument } from '../src/openapi/index.js';

const CORE_DOCUMENT = fileURLToPath(new URL('../../core/openapi.json', import.meta.url));
const skip = chromiumSkipReason();
if (skip !== false) console.log(`# skipped: the API reference page's browser tests: ${skip}`);

describe('the API reference page in headless Chromium', { skip }, () => {
  let server: Server;
  let base: string;

  before(async () => {
    const document = buildEffectiveDocument(JSON.parse(readFileSync(CORE_DOCUMENT, 'utf8')) as Record<string, unknown>, { deprecationDocUrl: '/docs/deprecations' });
    const answerDocs = createDocs({ document, documentPath: '/v1/openapi.json', deprecationNotesUrl: '/docs/deprecations' });
    server = createServer((req, res) => {
      const answer = answerDocs(req.method ?? 'GET', (req.url ?? '/').split('?')[0] as string, req.headers['if-none-match']);
      if (answer === undefined) res.writeHead(404).end();
      else res.writeHead(answer.status, answer.headers).end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server?.close(resolve)));

  test('renders every operation, shows getPet as deprecated and links the deprecation notes', async () => {
    const dom = await renderedDom(`${base}/docs`);
    const headings = [...dom.matchAll(/<h2[^>]*><a[^>]*href="#operation\/([A-Za-z]+)"[^>]*><\/a>([^<]*)(<span[^>]*>\s*Deprecated\s*<\/span>)?/g)].map((m) => [m[1], (m[2] ?? '').trim(), m[3] !== undefined]);
    assert.deepEqual(headings, [
      ['listPets', 'List animals', false],
      ['createPet', 'Add an animal', false],
      ['getPet', 'Fetch one animal by id', true],
      ['listStoreOrders', 'Store orders (not available in 1.0.0)', false],
      ['getUsage', 'Your plan and what is left of it', false],
    ]);
    assert.match(dom, /<a id="deprecation-notes" href="\/docs\/deprecations">/);
  });

  test('writes a screenshot of the page', async (t) => {
    const file = await screenshot(`${base}/docs`, 'api-reference.png');
    t.diagnostic(`screenshot: ${file}`);
    const png = readFileSync(file);
    assert.equal(png.subarray(0, 8).toString('hex'), '89504e470d0a1a0a', 'a PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [1280, 1400]);
    assert.ok(png.length > 50_000, 'more than a blank page');
  });
});
