import assert from 'node:assert/strict';
import { Agent, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import httpProxy from 'http-proxy';
import { PROXY_ENGINES } from '../src/proxy/index.js';
import {
  PROXY_TEST_PATHS,
  rawExchange,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  writeDocument,
} from './support/index.js';

/**
 * CVE-2026-29057: http-proxy's `deleteLength` pass turns a chunked DELETE or OPTIONS into
 * `Content-Length: 0` but still pipes the body, so the upstream reads the body as a second request
 * on the same keep-alive connection. The attack below hides `GET /v1/smuggled` in such a body.
 */
const SMUGGLED = 'GET /v1/smuggled HTTP/1.1\r\nHost: upstream\r\n\r\n';
function attack(method: string): string {
  const chunk = `${Buffer.byteLength(SMUGGLED).toString(16)}\r\n${SMUGGLED}\r\n0\r\n\r\n`;
  return `${method} /v1/echo HTTP/1.1\r\nHost: gateway\r\nTransfer-Encoding: chunked\r\n\r\n${chunk}`;
}
const answered = (text: string) => /\r\n\r\n[\s\S]*\}$/.test(text) || /\r\n0\r\n\r\n$/.test(text);

/** Sends one more request through `port`, so whatever the attack smuggled has been parsed before it. */
async function settle(port: number): Promise<void> {
  await rawExchange(port, 'GET /v1/echo HTTP/1.1\r\nHost: gateway\r\nConnection: close\r\n\r\n');
}

for (const engine of PROXY_ENGINES)
  describe(`request smuggling through chunked DELETE/OPTIONS (CVE-2026-29057), PROXY_ENGINE=${engine}`, () => {
    let upstream: RecordingUpstream;
    let gateway: RunningGateway;
    before(async () => {
      upstream = await startRecordingUpstream();
      gateway = await startGateway({ PROXY_ENGINE: engine, UPSTREAM_URL: upstream.url, OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS) });
    });
    after(async () => {
      await gateway?.close();
      await upstream?.close();
    });

    for (const method of ['DELETE', 'OPTIONS']) {
      test(`the gateway: a chunked ${method} is exactly one request upstream, its body intact`, async () => {
        upstream.requests.length = 0;
        const reply = await rawExchange(gateway.port, attack(method), answered);
        assert.match(reply, /^HTTP\/1\.1 200 /);
        await settle(gateway.port);
        const attackRequests = upstream.requests.filter((r) => r.method === method || r.url === '/v1/smuggled');
        assert.deepEqual(
          attackRequests.map((r) => `${r.method} ${r.url}`),
          [`${method} /v1/echo`],
        );
        assert.equal(attackRequests[0]?.body, SMUGGLED);
        assert.equal(attackRequests[0]?.headers['content-length'], String(Buffer.byteLength(SMUGGLED)));
        assert.equal(attackRequests[0]?.headers['transfer-encoding'], undefined);
      });
    }

    test('control: stock http-proxy 1.18.1 with a keep-alive agent lets the smuggled request through', async () => {
      // Proves the attack above is real, so the gateway test can fail: same upstream, no hardening.
      const proxy = httpProxy.createProxyServer({ target: upstream.url, agent: new Agent({ keepAlive: true, maxSockets: 1 }) });
      proxy.on('error', () => {});
      const server = createServer((req, res) => proxy.web(req, res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      try {
        upstream.requests.length = 0;
        await rawExchange(port, attack('DELETE'), answered, 1000);
        await settle(port);
        assert.ok(
          upstream.requests.some((r) => r.url === '/v1/smuggled'),
          `stock proxy sent: ${upstream.requests.map((r) => `${r.method} ${r.url}`).join(', ')}`,
        );
      } finally {
        server.closeAllConnections();
        server.close();
        proxy.close();
      }
    });
  });
