import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startService, type ServiceProcess } from '@animal-store/testkit';
import { type RunningGateway, startGateway } from './support/index.js';

const SUNSET = Date.parse('2030-12-05T00:00:00Z');

function assertDeprecationHeaders(res: Response): void {
  assert.equal(res.headers.get('deprecation'), `@${Date.parse('2026-11-22T00:00:00Z') / 1000}`);
  assert.equal(res.headers.get('sunset'), 'Thu, 05 Dec 2030 00:00:00 GMT');
  assert.equal(res.headers.get('link'), '</v1/pets?status=available>; rel="successor-version", </docs/deprecations>; rel="deprecation"; type="text/markdown"');
}

describe('deprecation and sunset of getPet, in front of the real core', () => {
  let core: ServiceProcess;
  let clock = SUNSET - 1;
  let gateway: RunningGateway;
  let petPath: string;

  before(async () => {
    core = await startService({ service: 'core', env: { PORT: '0' } });
    gateway = await startGateway({ UPSTREAM_URL: core.url }, () => clock);
    const created = await fetch(`${gateway.url}/v1/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"Old","categoryId":1}',
    });
    petPath = created.headers.get('location') ?? '';
  });
  after(async () => {
    await gateway?.close();
    await core?.stop();
  });

  test('before the sunset, getPet answers with Deprecation, Sunset and Link', async () => {
    clock = SUNSET - 1;
    const res = await fetch(`${gateway.url}${petPath}`);
    assert.equal(res.status, 200);
    assertDeprecationHeaders(res);
  });

  test("the upstream's errors for getPet carry the headers too", async () => {
    for (const path of ['/v1/pets/424242', '/v1/pets/abc']) {
      const res = await fetch(`${gateway.url}${path}`);
      assert.ok(res.status === 404 || res.status === 400);
      assertDeprecationHeaders(res);
    }
  });

  test('operations that are not deprecated carry none of them', async () => {
    const res = await fetch(`${gateway.url}/v1/pets`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('deprecation'), null);
    assert.equal(res.headers.get('sunset'), null);
  });

  test('from the sunset instant on, the gateway answers 410 gone itself, headers included', async () => {
    clock = SUNSET;
    const res = await fetch(`${gateway.url}${petPath}`);
    assertDeprecationHeaders(res);
    assert.equal(res.status, 410);
    const body = (await res.json()) as { code: string; status: number; message: string };
    assert.equal(body.code, 'gone');
    assert.equal(body.status, 410);
    assert.match(body.message, /\/v1\/pets\?status=available/);
  });

  test('ENFORCE_SUNSET=false keeps proxying after the sunset', async () => {
    const lenient = await startGateway({ UPSTREAM_URL: core.url, ENFORCE_SUNSET: 'false' }, () => SUNSET + 86_400_000);
    try {
      const res = await fetch(`${lenient.url}${petPath}`);
      assert.equal(res.status, 200);
      assertDeprecationHeaders(res);
    } finally {
      await lenient.close();
    }
  });

  test('the rel="deprecation" link serves the migration notes', async () => {
    const res = await fetch(`${gateway.url}/docs/deprecations`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/markdown/);
    const notes = await res.text();
    assert.match(notes, /GET \/v1\/pets\/\{petId\} \(`getPet`\)/);
    assert.match(notes, /2030-12-05T00:00:00.000Z/);
  });

  test('DEPRECATION_DOC_URL points the link at the operator’s own documentation', async () => {
    const custom = await startGateway({ UPSTREAM_URL: core.url, DEPRECATION_DOC_URL: 'https://docs.example.test/migrate#getpet' }, () => clock - 1);
    try {
      const res = await fetch(`${custom.url}${petPath}`);
      assert.match(res.headers.get('link') ?? '', /<https:\/\/docs\.example\.test\/migrate#getpet>; rel="deprecation"/);
      assert.equal((await fetch(`${custom.url}/docs/deprecations`)).status, 404);
    } finally {
      await custom.close();
    }
  });
});
