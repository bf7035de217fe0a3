import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { chromiumSkipReason, renderedDom, screenshot } from '@animal-store/testkit';
import { createTestKeyring, type RecordingUpstream, type RunningGateway, startGateway, startRecordingUpstream } from './support/index.js';

const skip = chromiumSkipReason();
if (skip !== false) console.log(`# skipped: the API reference page's browser tests: ${skip}`);

describe('the API reference page of the gateway, in headless Chromium', { skip }, () => {
  let upstream: RecordingUpstream;
  let gateway: RunningGateway;
  let base: string;

  before(async () => {
    upstream = await startRecordingUpstream();
    const keyring = await createTestKeyring();
    // The interface document of the core (the default OPENAPI_FILE), with keys and limits on.
    gateway = await startGateway({ UPSTREAM_URL: upstream.url, JWKS_FILE: keyring.files.jwks, RATE_LIMITS: 'on' });
    base = gateway.url;
  });
  after(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  test('renders every operation, shows getPet as deprecated and links the deprecation notes', async () => {
    const dom = await renderedDom(`${base}/docs`);
    const headings = [...dom.matchAll(/<h2[^>]*><a[^>]*href="#operation\/([A-Za-z]+)"[^>]*><\/a>([^<]*)(<span[^>]*>\s*Deprecated\s*<\/span>)?/g)].map((m) => [
      m[1],
      (m[2] ?? '').trim(),
      m[3] !== undefined,
    ]);
    assert.deepEqual(headings, [
      ['listPets', 'List animals', false],
      ['createPet', 'Add an animal', false],
      ['getPet', 'Fetch one animal by id', true],
      ['listStoreOrders', 'Store orders (not available in 1.0.0)', false],
      ['getUsage', 'Your plan and what is left of it', false],
    ]);
    assert.match(dom, /<a id="deprecation-notes" href="\/docs\/deprecations">/);
  });

  test("shows the schemas' own examples in its samples: no made-up map keys, type names or range minimums", async () => {
    const dom = await renderedDom(`${base}/docs`);
    // The samples panel of getUsage (its 200) and of listPets (its Pet page), as Redoc renders them.
    const text = dom.replace(/<[^>]+>/g, '').replace(/&quot;/g, '"');
    assert.match(text, /"plan":\s*"pro"/);
    assert.match(text, /"name":\s*"Rex"/);
    assert.doesNotMatch(text, /property1|"plan":\s*"string"|"status":\s*100\b/);
  });

  test('writes a screenshot of the page (its sidebar shows getPet struck through as deprecated)', async (t) => {
    const file = await screenshot(`${base}/docs`, 'api-reference.png');
    t.diagnostic(`screenshot: ${file}`);
    const png = readFileSync(file);
    assert.equal(png.subarray(0, 8).toString('hex'), '89504e470d0a1a0a', 'a PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [1280, 1400]);
    // A blank page of that size is about 8 kB; the rendered reference is over 100 kB.
    assert.ok(png.length > 50_000, 'more than a blank page');
  });
});
