import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { PROXY_ENGINES } from '../src/proxy/index.js';
import {
  BIG_BODY_BYTES,
  PROXY_TEST_PATHS,
  rawExchange,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  writeDocument,
} from './support/index.js';

async function assertGatewayError(res: Response, status: number, code: string): Promise<void> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.equal(res.headers.get('content-type'), 'application/json');
  const body = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status']);
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$|^[A-Za-z0-9]/);
}

for (const engine of PROXY_ENGINES) {
  describe(`proxy behaviour against a recording upstream (PROXY_ENGINE=${engine})`, () => {
    let upstream: RecordingUpstream;
    let gateway: RunningGateway;
    const document = writeDocument(PROXY_TEST_PATHS);

    before(async () => {
      upstream = await startRecordingUpstream();
      gateway = await startGateway({
        PROXY_ENGINE: engine,
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: document,
        UPSTREAM_TIMEOUT_MS: '300',
        TRUST_PROXY: '10.0.0.0/8',
      });
    });
    after(async () => {
      await gateway?.close();
      await upstream?.close();
    });

    test('a request is forwarded with its path, query, method and body', async () => {
      const res = await fetch(`${gateway.url}/v1/echo?x=1&y=%20`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
      assert.equal(res.status, 200);
      const seen = (await res.json()) as { method: string; url: string; body: string; headers: Record<string, string> };
      assert.equal(seen.method, 'POST');
      assert.equal(seen.url, '/v1/echo?x=1&y=%20');
      assert.equal(seen.body, '{"a":1}');
      assert.equal(seen.headers['content-length'], '7');
    });

    test('HEAD is routed to the GET operation and forwarded as HEAD, its answer without a body', async () => {
      // Over a raw socket: fetch would hide any body bytes a HEAD answer carried.
      const reply = await rawExchange(gateway.port, 'HEAD /v1/echo?h=1 HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n');
      assert.match(reply, /^HTTP\/1\.1 200 /);
      assert.ok(reply.endsWith('\r\n\r\n'), `nothing after the headers: ${JSON.stringify(reply.slice(-40))}`);
      assert.ok(Number(/content-length: (\d+)/i.exec(reply)?.[1]) > 0, "the upstream's length of the GET body");
      assert.equal(upstream.requests.at(-1)?.method, 'HEAD');
      assert.equal(upstream.requests.at(-1)?.url, '/v1/echo?h=1');
    });

    test('a POST without a body goes upstream with Content-Length: 0, not chunked', async () => {
      const reply = await rawExchange(gateway.port, 'POST /v1/echo HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n');
      const seen = JSON.parse(reply.slice(reply.indexOf('{'))) as { headers: Record<string, string>; body: string };
      assert.equal(seen.headers['content-length'], '0');
      assert.equal(seen.headers['transfer-encoding'], undefined);
      assert.equal(seen.body, '');
    });

    test('client-sent identity and hop-by-hop headers never reach the upstream', async () => {
      const raw =
        'GET /v1/echo HTTP/1.1\r\nHost: gw.test\r\nConnection: keep-alive, X-Drop-Me\r\nX-Drop-Me: 1\r\nKeep-Alive: timeout=9\r\n' +
        'TE: trailers\r\nProxy-Authorization: Basic eA==\r\nX-Api-Subject: admin\r\nX_Api_Subject: admin\r\nX_Forwarded_For: 6.6.6.6\r\nX-Api-Plan: enterprise\r\nx-api-key-id: k1\r\nX-API-Anything: 1\r\n' +
        'Forwarded: for=1.2.3.4\r\nX-Real-IP: 1.2.3.4\r\nX-Forwarded-For: 6.6.6.6\r\nX-Forwarded-Host: evil.test\r\nX-Forwarded-Proto: https\r\nX-Keep: yes\r\n\r\n';
      const reply = await rawExchange(gateway.port, raw, (text) => text.includes('}'));
      const headers = (JSON.parse(reply.slice(reply.indexOf('{'))) as { headers: Record<string, string> }).headers;
      for (const name of [
        'x_api_subject',
        'x_forwarded_for',
        'x-drop-me',
        'keep-alive',
        'te',
        'proxy-authorization',
        'x-api-subject',
        'x-api-plan',
        'x-api-key-id',
        'x-api-anything',
        'forwarded',
        'x-real-ip',
      ]) {
        assert.equal(headers[name], undefined, `${name} must not be forwarded`);
      }
      assert.equal(headers['x-keep'], 'yes');
      // The peer (127.0.0.1) is not a trusted proxy: its X-Forwarded-* claims are replaced.
      assert.equal(headers['x-forwarded-for'], '127.0.0.1');
      assert.equal(headers['x-forwarded-proto'], 'http');
      assert.equal(headers['x-forwarded-host'], 'gw.test');
      assert.equal(headers.host, new URL(upstream.url).host, "Host is the upstream's; the client's travels as X-Forwarded-Host");
    });

    test('dotted identity aliases and headers that reroute a request never reach the upstream', async () => {
      const raw =
        'GET /v1/echo HTTP/1.1\r\nHost: gw.test\r\nX-Api.Subject: admin\r\nX-Api.Plan: enterprise\r\nX.Forwarded.For: 6.6.6.6\r\n' +
        'X-Original-URL: /admin\r\nX-Rewrite-URL: /admin\r\nX-HTTP-Method-Override: DELETE\r\nX-HTTP-Method: DELETE\r\nX-Method-Override: DELETE\r\nX-Keep: yes\r\n\r\n';
      const reply = await rawExchange(gateway.port, raw, (text) => text.includes('}'));
      const headers = (JSON.parse(reply.slice(reply.indexOf('{'))) as { headers: Record<string, string> }).headers;
      for (const name of [
        'x-api.subject',
        'x-api.plan',
        'x.forwarded.for',
        'x-original-url',
        'x-rewrite-url',
        'x-http-method-override',
        'x-http-method',
        'x-method-override',
      ]) {
        assert.equal(headers[name], undefined, `${name} must not be forwarded`);
      }
      assert.equal(headers['x-keep'], 'yes');
    });

    test('hop-by-hop headers from the upstream never reach the client; repeated headers survive', async () => {
      const reply = await rawExchange(gateway.port, 'GET /v1/hop HTTP/1.1\r\nHost: gw\r\n\r\n', (text) => /\r\n0\r\n\r\n$/.test(text));
      const head = reply.slice(0, reply.indexOf('\r\n\r\n')).toLowerCase();
      assert.doesNotMatch(head, /x-upstream-secret|proxy-authenticate|keep-alive: timeout=30/);
      assert.doesNotMatch(head, /upstream-made-this/, "the gateway's request id wins");
      assert.match(head, /set-cookie: a=1\r\nset-cookie: b=2/);
      assert.match(head, /x-request-id: [0-9a-f-]{36}/);
    });

    test('X-Request-Id is kept when well formed, replaced otherwise, and returned either way', async () => {
      const kept = await fetch(`${gateway.url}/v1/echo`, { headers: { 'x-request-id': 'abc-123.trace:1' } });
      assert.equal(kept.headers.get('x-request-id'), 'abc-123.trace:1');
      assert.equal(((await kept.json()) as { headers: Record<string, string> }).headers['x-request-id'], 'abc-123.trace:1');
      const replaced = await fetch(`${gateway.url}/v1/echo`, { headers: { 'x-request-id': 'bad id with spaces' } });
      const id = replaced.headers.get('x-request-id') ?? '';
      assert.match(id, /^[0-9a-f-]{36}$/);
      assert.equal(((await replaced.json()) as { headers: Record<string, string> }).headers['x-request-id'], id);
    });

    test('unknown paths (404) and wrong methods (405) are answered without touching the upstream', async () => {
      const before = upstream.requests.length;
      await assertGatewayError(await fetch(`${gateway.url}/v1/nothing`), 404, 'not_found');
      const res = await fetch(`${gateway.url}/v1/hold`, { method: 'POST', body: 'x' });
      assert.equal(res.headers.get('allow'), 'GET, HEAD');
      await assertGatewayError(res, 405, 'method_not_allowed');
      assert.equal(upstream.requests.length, before);
    });

    test('a body over the limit is a 413 before the upstream sees anything', async () => {
      const before = upstream.requests.length;
      await assertGatewayError(await fetch(`${gateway.url}/v1/echo`, { method: 'POST', body: 'x'.repeat(70_000) }), 413, 'payload_too_large');
      // Chunked, with no declared length: refused once the count passes the limit.
      const chunked = await new Promise<number>((resolve, reject) => {
        const req = request(`${gateway.url}/v1/echo`, { method: 'POST' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        for (let i = 0; i < 10; i++) req.write('y'.repeat(10_000));
        req.end();
      });
      assert.equal(chunked, 413);
      assert.equal(upstream.requests.length, before);
    });

    test('an upstream slower than the timeout is a 504, and its request is abandoned', async () => {
      await assertGatewayError(await fetch(`${gateway.url}/v1/hold`), 504, 'upstream_timeout');
      await waitFor(() => upstream.abandoned.includes('/v1/hold'));
    });

    test('an upstream that resets the connection is a 502', async () => {
      await assertGatewayError(await fetch(`${gateway.url}/v1/reset`), 502, 'bad_gateway');
    });

    test('an upstream status outside 100-599 is a 502, not a crash', async () => {
      await assertGatewayError(await fetch(`${gateway.url}/v1/weird`), 502, 'bad_gateway');
      assert.equal((await fetch(`${gateway.url}/v1/echo`)).status, 200);
    });

    test('an upstream answering 101 to a request that asked for no upgrade is an immediate 502', async () => {
      const started = performance.now();
      await assertGatewayError(await fetch(`${gateway.url}/v1/switch`), 502, 'bad_gateway');
      assert.ok(performance.now() - started < 2000, `answered after ${Math.round(performance.now() - started)} ms`);
      assert.equal((await fetch(`${gateway.url}/v1/echo`)).status, 200);
    });

    test('a client that goes away destroys the upstream request', async () => {
      const abandonedBefore = upstream.abandoned.length;
      const controller = new AbortController();
      const pending = fetch(`${gateway.url}/v1/hold`, { signal: controller.signal, headers: { 'x-request-id': 'abort-me' } }).catch(() => 'aborted');
      await waitFor(() => upstream.requests.some((r) => r.headers['x-request-id'] === 'abort-me'));
      controller.abort();
      assert.equal(await pending, 'aborted');
      await waitFor(() => upstream.abandoned.length > abandonedBefore);
    });

    test('a large answer streams through whole, with backpressure', async () => {
      const res = await fetch(`${gateway.url}/v1/big`);
      assert.equal(res.status, 200);
      const body = Buffer.from(await res.arrayBuffer());
      assert.equal(body.length, BIG_BODY_BYTES);
      assert.ok(
        body.every((byte, i) => byte === (i % (64 * 1024)) % 251),
        'every byte as the upstream sent it',
      );
    });

    if (engine === 'undici') {
      test('an upstream silent within its body for the timeout: the answer is cut, never passed off as whole', { timeout: 5000 }, async () => {
        const res = await fetch(`${gateway.url}/v1/stall`);
        assert.equal(res.status, 200);
        await assert.rejects(res.text(), 'the client sees the answer fail, not a short body');
        await waitFor(() => upstream.abandoned.includes('/v1/stall'));
      });
    }

    test('a request queued behind busy upstream connections is a 504 in time, not held until one frees', { timeout: 5000 }, async () => {
      const narrow = await startGateway({
        PROXY_ENGINE: engine,
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: document,
        UPSTREAM_TIMEOUT_MS: '300',
        UPSTREAM_MAX_SOCKETS: '1',
      });
      const controller = new AbortController();
      try {
        // The one connection streams an endless answer that is read as it comes.
        const busy = await fetch(`${narrow.url}/v1/drip`, { signal: controller.signal });
        assert.equal(busy.status, 200);
        const reading = busy.body?.pipeTo(new WritableStream()).catch(() => {});
        await assertGatewayError(await fetch(`${narrow.url}/v1/echo`), 504, 'upstream_timeout');
        controller.abort();
        await reading;
      } finally {
        controller.abort();
        await narrow.close();
      }
    });

    test('a client that goes away mid-answer stops the upstream answer too', async () => {
      const controller = new AbortController();
      const res = await fetch(`${gateway.url}/v1/drip`, { signal: controller.signal, headers: { 'x-request-id': 'mid-body' } });
      const reader = res.body?.getReader();
      await reader?.read();
      controller.abort();
      await waitFor(() => upstream.abandoned.filter((url) => url === '/v1/drip').length > 0);
    });

    test("a path in UPSTREAM_URL goes in front of every forwarded path; readiness asks the upstream's origin", async () => {
      const prefixed = await startGateway({ PROXY_ENGINE: engine, UPSTREAM_URL: `${upstream.url}/base/`, OPENAPI_FILE: document });
      try {
        const seen = (await (await fetch(`${prefixed.url}/v1/echo?q=1`)).json()) as { url: string };
        assert.equal(seen.url, '/base/v1/echo?q=1');
        assert.equal((await fetch(`${prefixed.url}/readyz`)).status, 200);
        assert.equal(upstream.requests.at(-1)?.url, '/readyz');
      } finally {
        await prefixed.close();
      }
    });

    test('the gateway keeps serving after all of the above', async () => {
      assert.equal((await fetch(`${gateway.url}/v1/echo`)).status, 200);
      assert.equal((await fetch(`${gateway.url}/healthz`)).status, 200);
    });
  });

  describe(`Node's server limits answer with Error bodies (PROXY_ENGINE=${engine})`, () => {
    test('headers that arrive too slowly get 408, oversized headers 431', async () => {
      const gateway = await startGateway({
        PROXY_ENGINE: engine,
        UPSTREAM_URL: 'http://127.0.0.1:9',
        HEADERS_TIMEOUT_MS: '200',
        REQUEST_TIMEOUT_MS: '300',
        MAX_HEADER_SIZE: '2048',
      });
      try {
        const slow = await rawExchange(gateway.port, 'GET /v1/pets HTTP/1.1\r\nHost: gw\r\nX-Slow: 1', () => false, 3000);
        assert.match(slow, /^HTTP\/1\.1 408 Request Timeout\r\n/);
        assert.match(slow, /"code":"request_timeout","message":"[^"]+","status":408/);
        const huge = await rawExchange(gateway.port, `GET /v1/pets HTTP/1.1\r\nHost: gw\r\nX-Big: ${'x'.repeat(4096)}\r\n\r\n`);
        assert.match(huge, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
        assert.match(huge, /"code":"headers_too_large"/);
      } finally {
        await gateway.close();
      }
    });
  });

  describe(`upstream refusing connections (PROXY_ENGINE=${engine})`, () => {
    test('a refused connection is a 502 bad_gateway, and /readyz says not ready', async () => {
      const upstream = await startRecordingUpstream();
      const url = upstream.url;
      await upstream.close();
      const gateway = await startGateway({ PROXY_ENGINE: engine, UPSTREAM_URL: url, OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS) });
      try {
        await assertGatewayError(await fetch(`${gateway.url}/v1/echo`), 502, 'bad_gateway');
        await assertGatewayError(await fetch(`${gateway.url}/readyz`), 503, 'not_ready');
        assert.equal((await fetch(`${gateway.url}/healthz`)).status, 200);
      } finally {
        await gateway.close();
      }
    });
  });
}

/** Polls `condition` (an effect in another server) until it holds, for at most 3 s. */
async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!condition()) {
    assert.ok(Date.now() < deadline, 'condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
