import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { endlessUpload, startService } from '@animal-store/testkit';
import {
  createTestKeyring,
  PROXY_TEST_PATHS,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  servingPid,
  startRecordingUpstream,
  writeDocument,
} from './support/index.js';

describe('early answers close the connection instead of draining the body', () => {
  let upstream: RecordingUpstream;
  let gateway: RunningGateway;
  let token: string;

  before(async () => {
    upstream = await startRecordingUpstream();
    const keyring = await createTestKeyring();
    token = (await keyring.issue()).token;
    gateway = await startGateway({ UPSTREAM_URL: upstream.url, OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS), JWKS_FILE: keyring.files.jwks });
  });
  after(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  const CASES: [name: string, head: () => string, status: number][] = [
    ['a 256 MiB POST to an unknown path', () => 'POST /v1/nowhere HTTP/1.1\r\nHost: gw\r\nContent-Length: 268435456\r\n\r\n', 404],
    ['an unauthenticated 256 MiB POST', () => 'POST /v1/echo HTTP/1.1\r\nHost: gw\r\nContent-Length: 268435456\r\n\r\n', 401],
    [
      'an endless chunked upload with a key',
      () => `POST /v1/echo HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer ${token}\r\nTransfer-Encoding: chunked\r\n\r\n40000\r\n`,
      413,
    ],
  ];
  for (const [name, head, status] of CASES) {
    test(`${name}: the ${status} arrives, then the gateway stops reading within its bounds`, async () => {
      const { reply, sent, closedAfterMs } = await endlessUpload(gateway.port, head());
      assert.match(reply, new RegExp(`^HTTP/1\\.1 ${status} `));
      assert.match(reply, /\r\nconnection: close\r\n/i);
      assert.ok(closedAfterMs !== undefined && closedAfterMs < 4000, `closed after ${closedAfterMs} ms`);
      // At most the lingering 4 MiB are read; the rest is what the kernels' buffers held.
      assert.ok(sent < 48 * 1024 * 1024, `the client could send ${(sent / 1048576).toFixed(0)} MiB`);
      assert.equal(
        upstream.requests.some((r) => r.method === 'POST'),
        false,
      );
    });
  }

  test('a 2 MiB chunked upload over the limit always receives its 413, never a reset', async () => {
    const body = Buffer.alloc(2 * 1024 * 1024, 0x62);
    for (let i = 0; i < 20; i++) {
      const reply = await new Promise<string>((resolve) => {
        const socket = connect(gateway.port, '127.0.0.1', () => {
          socket.write(
            `POST /v1/echo HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer ${token}\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n`,
          );
          socket.write(body);
          socket.write('\r\n0\r\n\r\n');
        });
        let text = '';
        socket.on('data', (data) => (text += data.toString('latin1')));
        socket.on('error', () => {});
        socket.on('close', () => resolve(text));
      });
      assert.match(reply, /^HTTP\/1\.1 413 /, `attempt ${i}: ${JSON.stringify(reply.slice(0, 80))}`);
    }
  });

  test('a request whose body is read keeps its connection alive', async () => {
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(gateway.port, '127.0.0.1', () => {
        const post = `POST /v1/echo HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer ${token}\r\nContent-Length: 2\r\n\r\n{}`;
        socket.write(post + post);
      });
      let text = '';
      socket.on('data', (data) => {
        text += data.toString('latin1');
        if ((text.match(/HTTP\/1\.1 200 /g) ?? []).length === 2) socket.destroy();
      });
      socket.on('close', () => resolve(text));
    });
    assert.equal((reply.match(/HTTP\/1\.1 200 /g) ?? []).length, 2);
    assert.doesNotMatch(reply, /connection: close/i);
  });
});

describe('sockets of refused requests cost the gateway a bounded time', () => {
  test('200 clients too slow to send their headers, answered 408, that then never read nor close: their descriptors are freed within seconds', async () => {
    const upstream = await startRecordingUpstream();
    // A gateway that does not start must not leave the upstream listening: the file would never end.
    const gateway = await startService({
      service: 'gateway',
      env: { PORT: '0', AUTH: 'off', RATE_LIMITS: 'off', HEADERS_TIMEOUT_MS: '500', UPSTREAM_URL: upstream.url, OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS) },
    }).catch(async (error: unknown) => {
      await upstream.close();
      throw error;
    });
    const port = Number(new URL(gateway.url).port);
    // The worker's: it holds the connections (the primary hands each over at once).
    const worker = servingPid(gateway.pid);
    assert.notEqual(worker, gateway.pid, 'the worker, not the primary, holds the connections');
    const descriptors = () => readdirSync(`/proc/${worker}/fd`).length;
    const sockets: Socket[] = [];
    try {
      const baseline = descriptors();
      await Promise.all(
        Array.from(
          { length: 200 },
          () =>
            new Promise<void>((resolve) => {
              // allowHalfOpen: our FIN gets no FIN back, as from a client that never closes.
              const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => socket.write('GET /v1/echo HTTP/1.1\r\nHost: gw\r\n'));
              socket.on('error', () => {});
              // Keep the socket, read the answer's first bytes then stop reading, never close.
              socket.once('data', () => {
                socket.pause();
                resolve();
              });
              sockets.push(socket);
            }),
        ),
      );
      const deadline = Date.now() + 6000;
      while (descriptors() > baseline + 5) {
        assert.ok(Date.now() < deadline, `the gateway still holds ${descriptors() - baseline} more descriptors than before`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      await gateway.stop();
      await upstream.close();
    }
  });
});
