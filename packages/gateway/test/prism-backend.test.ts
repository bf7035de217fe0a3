import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { freePort, TEST_ENV } from '@animal-store/testkit';
import { createTestKeyring, type RunningGateway, startGateway } from './support/index.js';

// The gateway in front of a pets backend we did not write: Stoplight Prism mocking the interface
// document at "/" (not "/v1"), enforcing the document's security (a bearer token on every call)
// and validating every request against it. The gateway's settings are the ones docs/backend.md gives
// for such a backend: UPSTREAM_BASE_PATH=/ and FORWARD_AUTHORIZATION=true.

const PRISM = fileURLToPath(new URL('../../../node_modules/.bin/prism', import.meta.url));
const DOCUMENT = fileURLToPath(new URL('../../core/openapi.json', import.meta.url));

function prismSkipReason(): string | false {
  if (existsSync(PRISM)) return false;
  const reason = 'Prism is not installed (npm ci installs it as a devDependency)';
  if (TEST_ENV.ci) throw new Error(`CI=true but ${reason}`);
  return reason;
}

/** `prism mock` on a free loopback port; resolves once it answers. */
async function startPrism(): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const port = await freePort();
  // --errors: an invalid request is an error answer, never a made-up success.
  const child = spawn(PRISM, ['mock', '--host', '127.0.0.1', '--port', String(port), '--errors', DOCUMENT], {
    env: { PATH: TEST_ENV.path, SCARF_ANALYTICS: 'false', HOME: process.env.HOME ?? '/tmp' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (
    !(await fetch(`${url}/pets`).then(
      () => true,
      () => false,
    ))
  ) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`prism did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, child, output: () => output };
}

describe('in front of Stoplight Prism mocking the interface at "/" with its security enforced', { skip: prismSkipReason() }, () => {
  let prism: Awaited<ReturnType<typeof startPrism>>;
  let gateway: RunningGateway;
  let keyring: Awaited<ReturnType<typeof createTestKeyring>>;
  let key: string;

  before(async () => {
    prism = await startPrism();
    keyring = await createTestKeyring();
    key = (await keyring.issue({ plan: 'pro', sub: 'acme' })).token;
    gateway = await startGateway({
      UPSTREAM_URL: prism.url,
      UPSTREAM_BASE_PATH: '/',
      FORWARD_AUTHORIZATION: 'true',
      JWKS_FILE: keyring.files.jwks,
      RATE_LIMITS: 'on',
    });
  });
  after(async () => {
    await gateway?.close();
    prism?.child.kill('SIGTERM');
  });

  /** `token` null: no Authorization header at all. */
  const call = (path: string, init: RequestInit = {}, token: string | null = key) =>
    fetch(`${gateway.url}${path}`, {
      ...init,
      headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...(init.headers as Record<string, string>) },
    });

  test("listPets: 200 with an array, and the gateway's own rate-limit headers, not the mock's", async () => {
    const res = await call('/v1/pets?limit=5');
    assert.equal(res.status, 200, await res.clone().text());
    assert.ok(Array.isArray(await res.json()));
    assert.equal(res.headers.get('x-ratelimit-limit'), '300', "the pro plan, not the mock's example value");
    assert.match(res.headers.get('ratelimit') ?? '', /^"minute";r=\d+;t=\d+, "day";r=\d+;t=\d+$/);
    assert.equal(res.headers.get('access-control-allow-origin'), null, "the mock's CORS headers stay behind");
  });

  test("listPets with a limit out of range: the backend's 4xx passes through", async () => {
    const res = await call('/v1/pets?limit=1000');
    assert.ok(res.status === 400 || res.status === 422, String(res.status));
  });

  test('createPet: a valid NewPet is 201; an invalid one is refused by the backend', async () => {
    const created = await call('/v1/pets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    assert.equal(typeof ((await created.json()) as { id: unknown }).id, 'number');
    const invalid = await call('/v1/pets', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ nme: 'Rex' }) });
    assert.equal(invalid.status, 422);
    assert.match(invalid.headers.get('sl-violations') ?? '', /required property 'name'/);
  });

  test("getPet: 200 with the gateway's deprecation headers; an id that is not an integer is the backend's 400", async () => {
    const res = await call('/v1/pets/7');
    assert.equal(res.status, 200, await res.clone().text());
    assert.match(res.headers.get('deprecation') ?? '', /^@\d+$/);
    assert.ok(res.headers.get('sunset'));
    assert.match(res.headers.get('link') ?? '', /rel="successor-version"/);
    assert.equal((await call('/v1/pets/abc')).status, 400);
  });

  test("no key or a bad key: the gateway's 401, and nothing reaches the backend's own check", async () => {
    for (const token of [null, 'not-a-key']) {
      const res = await call('/v1/pets', {}, token);
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as { code: string }).code, 'unauthorized');
    }
  });

  test('without FORWARD_AUTHORIZATION the backend refuses every call: why the setting exists', async () => {
    const stripped = await startGateway({ UPSTREAM_URL: prism.url, UPSTREAM_BASE_PATH: '/', JWKS_FILE: keyring.files.jwks });
    try {
      const res = await fetch(`${stripped.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(res.status, 401);
      assert.notEqual(res.headers.get('www-authenticate'), null);
    } finally {
      await stripped.close();
    }
  });

  test("without UPSTREAM_BASE_PATH every call is the backend's 404: why the setting exists", async () => {
    const unchanged = await startGateway({ UPSTREAM_URL: prism.url, FORWARD_AUTHORIZATION: 'true', JWKS_FILE: keyring.files.jwks });
    try {
      assert.equal((await fetch(`${unchanged.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status, 404);
      assert.equal((await fetch(`${unchanged.url}/readyz`)).status, 200, 'a 404 still says the backend is up');
    } finally {
      await unchanged.close();
    }
  });
});
