import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { commandSkipReason, selfSignedCertificate, temporaryDir } from '@animal-store/testkit';
import {
  createTestKeyring,
  PROXY_TEST_PATHS,
  rawExchange,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  writeDocument,
} from './support/index.js';

// What it takes to put the gateway in front of a pets backend we did not write: another base
// path, a document with only what OpenAPI requires, a backend that checks the key itself,
// browsers, TLS.

describe('the public base path and the backend base path are independent', () => {
  let upstream: RecordingUpstream;
  before(async () => {
    upstream = await startRecordingUpstream();
  });
  after(() => upstream.close());

  const CASES: [settings: Record<string, string>, requested: string, forwarded: string][] = [
    [{}, '/v1/echo?x=1', '/v1/echo?x=1'],
    [{ UPSTREAM_BASE_PATH: '/' }, '/v1/echo?x=1', '/echo?x=1'],
    [{ UPSTREAM_BASE_PATH: '/api/pets-service' }, '/v1/echo', '/api/pets-service/echo'],
    [{ PUBLIC_BASE_PATH: '/store/v2' }, '/store/v2/echo', '/store/v2/echo'],
    [{ PUBLIC_BASE_PATH: '/store/v2', UPSTREAM_BASE_PATH: '/v1' }, '/store/v2/echo', '/v1/echo'],
    [{ PUBLIC_BASE_PATH: '/', UPSTREAM_BASE_PATH: '/v1' }, '/echo', '/v1/echo'],
  ];
  for (const [settings, requested, forwarded] of CASES) {
    test(`${JSON.stringify(settings)}: ${requested} → ${forwarded}`, async () => {
      const gateway = await startGateway({ UPSTREAM_URL: upstream.url, OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS), ...settings });
      try {
        const res = await fetch(`${gateway.url}${requested}`);
        assert.equal(res.status, 200);
        assert.equal(((await res.json()) as { url: string }).url, forwarded);
      } finally {
        await gateway.close();
      }
    });
  }

  test('the old public path is not served once PUBLIC_BASE_PATH moves it', async () => {
    const gateway = await startGateway({ UPSTREAM_URL: upstream.url, OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS), PUBLIC_BASE_PATH: '/store' });
    try {
      assert.equal((await fetch(`${gateway.url}/v1/echo`)).status, 404);
    } finally {
      await gateway.close();
    }
  });
});

describe('a document with only what OpenAPI requires', () => {
  test('no servers and no operationIds: operations at the root, named by method and path', async () => {
    const upstream = await startRecordingUpstream();
    const file = join(temporaryDir('gw-doc-'), 'openapi.json');
    writeFileSync(file, JSON.stringify({ openapi: '3.0.3', info: { title: 'minimal', version: '1' }, paths: { '/echo': { get: {}, put: {}, delete: {} } } }));
    const gateway = await startGateway({ UPSTREAM_URL: upstream.url, OPENAPI_FILE: file });
    try {
      assert.equal((await fetch(`${gateway.url}/echo`)).status, 200);
      assert.equal(upstream.requests.at(-1)?.url, '/echo');
      const refused = await fetch(`${gateway.url}/echo`, { method: 'POST' });
      assert.equal(refused.status, 405);
      assert.equal(refused.headers.get('allow'), 'GET, PUT, DELETE, HEAD', 'the methods the document gives this path');
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });
});

describe('readiness of a backend that has no open /readyz', () => {
  for (const [status, ready] of [
    [200, 200],
    [401, 200],
    [404, 200],
    [503, 503],
  ] as const) {
    test(`the backend answers ${status} → /readyz ${ready}`, async () => {
      const upstream = await startRecordingUpstream({ '/readyz': (_req, res) => res.writeHead(status).end() });
      const gateway = await startGateway({ UPSTREAM_URL: upstream.url, OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS) });
      try {
        assert.equal((await fetch(`${gateway.url}/readyz`)).status, ready);
      } finally {
        await gateway.close();
        await upstream.close();
      }
    });
  }
});

describe('a backend that checks the key itself: FORWARD_AUTHORIZATION', () => {
  let upstream: RecordingUpstream;
  let keyring: Awaited<ReturnType<typeof createTestKeyring>>;
  before(async () => {
    upstream = await startRecordingUpstream();
    keyring = await createTestKeyring();
  });
  after(() => upstream.close());

  for (const forward of [false, true]) {
    test(`FORWARD_AUTHORIZATION=${forward}: the verified credential ${forward ? 'goes on' : 'stays at the gateway'}, the identity always goes`, async () => {
      const gateway = await startGateway({
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
        JWKS_FILE: keyring.files.jwks,
        FORWARD_AUTHORIZATION: String(forward),
      });
      try {
        const { token } = await keyring.issue({ sub: 'acme' });
        const res = await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(res.status, 200);
        const seen = ((await res.json()) as { headers: Record<string, string> }).headers;
        assert.equal(seen.authorization, forward ? `Bearer ${token}` : undefined);
        assert.equal(seen['x-api-subject'], 'acme');
        const forged = await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: 'Bearer not-a-key' } });
        assert.equal(forged.status, 401, 'an unverified credential never reaches the backend');
      } finally {
        await gateway.close();
      }
    });
  }
});

describe('CORS: browsers on the allowed origins', () => {
  let upstream: RecordingUpstream;
  let gateway: RunningGateway;
  let keyring: Awaited<ReturnType<typeof createTestKeyring>>;
  before(async () => {
    upstream = await startRecordingUpstream();
    keyring = await createTestKeyring();
    gateway = await startGateway({
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      JWKS_FILE: keyring.files.jwks,
      RATE_LIMITS: 'on',
      CORS_ORIGINS: 'https://app.example.com',
      CORS_MAX_AGE_SECONDS: '120',
    });
  });
  after(async () => {
    await gateway?.close();
    await upstream.close();
  });

  const preflight = (origin: string, path = '/v1/echo') =>
    fetch(`${gateway.url}${path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });

  test("a preflight is answered by the gateway: 204, the path's methods, no key, nothing sent upstream", async () => {
    const before = upstream.requests.length;
    const res = await preflight('https://app.example.com');
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), 'https://app.example.com');
    assert.equal(res.headers.get('access-control-allow-methods'), 'GET, POST, DELETE, OPTIONS, HEAD');
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /authorization.*content-type.*idempotency-key/);
    assert.equal(res.headers.get('access-control-max-age'), '120');
    assert.equal(res.headers.get('vary'), 'origin');
    assert.equal(upstream.requests.length, before);
  });

  test('a preflight from another origin is refused with the Error body', async () => {
    const res = await preflight('https://evil.example.net');
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    assert.deepEqual(await res.json(), {
      code: 'origin_not_allowed',
      message: 'Browsers on https://evil.example.net may not call this API (CORS_ORIGINS).',
      status: 403,
    });
  });

  test('answers to an allowed origin expose the rate-limit, paging and deprecation headers; others get no CORS headers', async () => {
    const { token } = await keyring.issue();
    const res = await fetch(`${gateway.url}/v1/echo`, { headers: { origin: 'https://app.example.com', authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), 'https://app.example.com');
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(', ');
    for (const name of ['x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'retry-after', 'link', 'location', 'deprecation', 'sunset', 'x-request-id'])
      assert.ok(exposed.includes(name), name);
    const refused = await fetch(`${gateway.url}/v1/echo`, { headers: { origin: 'https://app.example.com' } });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('access-control-allow-origin'), 'https://app.example.com', 'a browser script can read its 401');
    const other = await fetch(`${gateway.url}/v1/echo`, { headers: { origin: 'https://evil.example.net', authorization: `Bearer ${token}` } });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
  });

  test("a backend's own Access-Control-* headers never cross the gateway, with CORS on or off", async () => {
    const open = await startRecordingUpstream({
      '/v1/echo': (_req, res) =>
        res.writeHead(200, { 'access-control-allow-origin': '*', 'access-control-allow-credentials': 'true', 'content-type': 'application/json' }).end('{}'),
    });
    for (const CORS_ORIGINS of ['https://app.example.com', '']) {
      const gateway = await startGateway({ UPSTREAM_URL: open.url, OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS), CORS_ORIGINS });
      try {
        const res = await fetch(`${gateway.url}/v1/echo`, { headers: { origin: 'https://evil.example.net' } });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('access-control-allow-origin'), null, CORS_ORIGINS);
        assert.equal(res.headers.get('access-control-allow-credentials'), null, CORS_ORIGINS);
      } finally {
        await gateway.close();
      }
    }
    await open.close();
  });

  test('without CORS_ORIGINS a preflight is an ordinary OPTIONS request (405 where the document has none)', async () => {
    const plain = await startGateway({ UPSTREAM_URL: upstream.url, OPENAPI_FILE: writeDocument({ '/echo': { get: { operationId: 'echo' } } }) });
    try {
      const res = await fetch(`${plain.url}/v1/echo`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
      });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('access-control-allow-origin'), null);
    } finally {
      await plain.close();
    }
  });
});

describe("TLS on the gateway's listener", { skip: commandSkipReason('openssl', 'apt-get install openssl') }, () => {
  test('TLS_CERT_FILE and TLS_KEY_FILE: the API is served over HTTPS only', async () => {
    const upstream = await startRecordingUpstream();
    const tls = selfSignedCertificate(temporaryDir('gw-tls-'));
    const gateway = await startGateway({
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      TLS_CERT_FILE: tls.certFile,
      TLS_KEY_FILE: tls.keyFile,
    });
    try {
      assert.match(gateway.url, /^https:/);
      const answer = await new Promise<{ status: number; body: string; protocol: string }>((resolve, reject) => {
        const req = request(`${gateway.url}/v1/echo`, { ca: readFileSync(tls.certFile) }, (res) => {
          const protocol = (res.socket as TLSSocket).getProtocol() ?? '';
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, protocol }));
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(answer.status, 200);
      assert.match(answer.protocol, /^TLSv1\.[23]$/);
      assert.equal((JSON.parse(answer.body) as { headers: Record<string, string> }).headers['x-forwarded-proto'], 'https');
      const plain = await rawExchange(gateway.port, 'GET /v1/echo HTTP/1.1\r\nhost: x\r\n\r\n', (text) => text.length > 0, 1000);
      assert.doesNotMatch(plain, /^HTTP\/1\.1 200/, 'plain HTTP gets no API answer');
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });
});

describe("answers made by the HTTP parser carry the gateway's headers", () => {
  test("431: the anonymous limit's state, and getPet's deprecation headers", async () => {
    const upstream = await startRecordingUpstream();
    const keyring = await createTestKeyring();
    // The interface's own document (getPet is deprecated) and the shipped plans.
    const gateway = await startGateway({ UPSTREAM_URL: upstream.url, JWKS_FILE: keyring.files.jwks, RATE_LIMITS: 'on', MAX_HEADER_SIZE: '2048' });
    try {
      const huge = `x-padding: ${'a'.repeat(4096)}\r\n`;
      const first = await rawExchange(gateway.port, `GET /v1/pets/1 HTTP/1.1\r\nhost: x\r\n${huge}\r\n`);
      assert.match(first, /^HTTP\/1\.1 431 /);
      assert.match(first, /\r\nx-ratelimit-limit: \d+\r\n/i);
      const remaining = Number(/\r\nx-ratelimit-remaining: (\d+)\r\n/i.exec(first)?.[1]);
      assert.match(first, /\r\nratelimit-policy: /i);
      assert.match(first, /\r\ndeprecation: @\d+\r\n/i);
      assert.match(first, /\r\nsunset: [A-Z][a-z]{2}, /i);
      assert.match(first, /"code":"headers_too_large"/);
      const second = await rawExchange(gateway.port, `GET /v1/pets HTTP/1.1\r\nhost: x\r\n${huge}\r\n`);
      assert.equal(Number(/\r\nx-ratelimit-remaining: (\d+)\r\n/i.exec(second)?.[1]), remaining - 1, 'each one is charged to the address');
      assert.doesNotMatch(second, /\r\ndeprecation:/i, 'listPets is not deprecated');
      assert.equal(upstream.requests.length, 0);
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });
});
