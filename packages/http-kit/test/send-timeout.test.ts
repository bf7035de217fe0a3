import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { limitSendTime } from '../src/index.js';

// Issue "hold the guarantees": a client that stops reading a large answer held a descriptor of
// the server for as long as it liked (Node's timeouts end with the request or start after the
// answer). limitSendTime bounds it.
describe('limitSendTime', () => {
  let server: Server;
  let port: number;
  const serverSockets = new Set<Socket>();

  before(async () => {
    server = createServer({ keepAliveTimeout: 600 }, (req, res) => {
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 900); // working on it
      if (req.url === '/pauses') {
        // A stream whose source goes quiet for longer than the send timeout, twice (SSE, a long poll).
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first ');
        setTimeout(() => res.write('second '), 1000);
        return void setTimeout(() => res.end('last'), 2000);
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      // 64 MiB: more than any socket buffers hold, so the answer cannot finish unread.
      const chunk = Buffer.alloc(1024 * 1024);
      let left = 64;
      const more = () => {
        while (left > 0) {
          left -= 1;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    server.on('connection', (socket: Socket) => {
      serverSockets.add(socket);
      socket.once('close', () => serverSockets.delete(socket));
    });
    limitSendTime(server, 400);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const until = async (condition: () => boolean, ms: number) => {
    const deadline = performance.now() + ms;
    while (!condition() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    return condition();
  };

  test('a client that stops reading a large answer is disconnected within the send timeout', async () => {
    const clients: Socket[] = [];
    for (let i = 0; i < 5; i++) {
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => socket.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n'));
      socket.on('error', () => {});
      socket.once('data', () => socket.pause());
      clients.push(socket);
    }
    try {
      assert.ok(await until(() => serverSockets.size === 5, 2000), 'the clients connected');
      const started = performance.now();
      assert.ok(await until(() => serverSockets.size === 0, 3000), `${serverSockets.size} sockets still open 3 s later`);
      const waited = performance.now() - started;
      assert.ok(waited < 1500, `closed after ${waited} ms with a 400 ms send timeout`);
    } finally {
      for (const client of clients) client.destroy();
    }
  });

  test('a request the server is still working on past the timeout gets its answer', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/slow`);
    assert.equal(await res.text(), 'late');
  });

  test('a streamed answer whose source is silent for longer than the timeout reaches a reading client whole', async () => {
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/pauses`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'first second last');
    assert.ok(performance.now() - started >= 1900, 'the pauses were there');
  });

  test('an idle keep-alive socket is still closed at the keep-alive timeout (Node leaves it to the timeout listener)', async () => {
    const socket = connect({ port, host: '127.0.0.1' }, () => socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.on('error', () => {});
    socket.resume();
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    assert.ok(
      await Promise.race([closed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3000))]),
      'the idle socket was closed',
    );
  });
});
