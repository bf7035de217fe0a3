import assert from 'node:assert/strict';
import { createServer, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createUpstream, PROXY_ENGINES, type Upstream } from '../src/proxy/index.js';
import { PROXY_TEST_PATHS, type RecordingUpstream, type RunningGateway, startGateway, startRecordingUpstream, writeDocument } from './support/index.js';

const MAX_SOCKETS = 2;

/** A header value no proxy engine can send (a code point above U+00FF): the engine refuses the request. */
const UNSENDABLE: OutgoingHttpHeaders = { 'x-test-unsendable': 'Łódź-日本語' };

// Issue 29, point 1: undici's Pool took a connection out of use for good whenever a dispatch was
// refused (an invalid header value); after UPSTREAM_MAX_SOCKETS of them every request waited out
// its timeout. The gateway itself no longer builds such a request (a key whose sub no header can
// carry is refused at verification), so these tests put the refused header in themselves: a
// server in this process hands each request to the real engine, against a real upstream, as the
// forward step does.
for (const engine of PROXY_ENGINES) {
  describe(`a request the engine refuses costs no connection (PROXY_ENGINE=${engine})`, () => {
    let upstream: RecordingUpstream;
    let proxy: Upstream;
    let server: Server;
    let url: string;

    before(async () => {
      upstream = await startRecordingUpstream();
      // The timeout is long: a lost connection shows as a request that waits it out (a 504).
      proxy = createUpstream(engine, { target: new URL(upstream.url), timeoutMs: 5000, idleTimeoutMs: 10_000, maxSockets: MAX_SOCKETS, readyPath: '/readyz' });
      server = createServer((req, res) => {
        const headers = req.url?.startsWith('/refused') ? UNSENDABLE : {};
        proxy.forward({ req, res, path: req.url ?? '/', headers, body: undefined, responseHeaders: {} }).then(
          (outcome) => {
            if (outcome.kind !== 'failed') return;
            res.writeHead(outcome.code === 'bad_gateway' ? 502 : 504, { 'content-type': 'text/plain' });
            res.end(outcome.code);
          },
          (error: unknown) => {
            res.writeHead(500, { 'content-type': 'text/plain' });
            res.end(`forward threw: ${String(error)}`);
          },
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
      proxy?.close();
      await upstream?.close();
    });

    test(`more than UPSTREAM_MAX_SOCKETS refused requests, one by one and at once: each a 502, and the next request is a 200`, async () => {
      const before = upstream.requests.length;
      for (let i = 0; i < MAX_SOCKETS * 3; i++) {
        const res = await fetch(`${url}/refused/${i}`);
        assert.equal(res.status, 502, await res.text());
      }
      const together = await Promise.all(Array.from({ length: MAX_SOCKETS * 3 }, (_, i) => fetch(`${url}/refused/together-${i}`)));
      assert.deepEqual(
        together.map((res) => res.status),
        together.map(() => 502),
      );
      assert.equal(upstream.requests.length, before, 'nothing refused reached the upstream');
      for (let i = 0; i < MAX_SOCKETS * 2; i++) {
        const res = await fetch(`${url}/v1/echo?after=${i}`);
        assert.equal(res.status, 200, await res.text());
      }
      const mixed = await Promise.all(Array.from({ length: MAX_SOCKETS * 4 }, (_, i) => fetch(`${url}/${i % 2 === 0 ? 'refused' : 'v1/echo'}/mixed-${i}`)));
      assert.deepEqual(
        mixed.map((res) => res.status),
        mixed.map((_, i) => (i % 2 === 0 ? 502 : 200)),
      );
      assert.equal(await proxy.ready(), true);
    });
  });

  describe(`/readyz with every upstream connection busy (PROXY_ENGINE=${engine})`, () => {
    let upstream: RecordingUpstream;
    let gateway: RunningGateway;

    before(async () => {
      upstream = await startRecordingUpstream();
      gateway = await startGateway({
        PROXY_ENGINE: engine,
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
        UPSTREAM_MAX_SOCKETS: String(MAX_SOCKETS),
        UPSTREAM_TIMEOUT_MS: '60000',
      });
    });
    after(async () => {
      await gateway?.close();
      await upstream?.close();
    });

    test('answers on a connection of its own, not behind the requests that hold the pool', async () => {
      const holding = Array.from({ length: MAX_SOCKETS * 2 }, () =>
        fetch(`${gateway.url}/v1/hold`, { signal: AbortSignal.timeout(60_000) }).catch(() => undefined),
      );
      while (upstream.requests.filter((request) => request.url === '/v1/hold').length < MAX_SOCKETS) await new Promise((resolve) => setTimeout(resolve, 10));
      // Far above the probe's 1 s bound: only a probe queued behind the held requests waits this long.
      const res = await fetch(`${gateway.url}/readyz`, { signal: AbortSignal.timeout(15_000) });
      assert.equal(res.status, 200, await res.text());
      assert.equal(upstream.requests.at(-1)?.url, '/readyz');
      await gateway.close();
      await Promise.all(holding);
    });
  });
}
