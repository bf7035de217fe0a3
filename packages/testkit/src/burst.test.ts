import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { after, before, test } from 'node:test';
import { burst } from './burst.js';

// The one burst of the tests and benchmarks: every request on a fresh connection, spread over the
// URLs in turn, counted by status; a request without an answer counts as 0 and says why.

const seen: { path: string | undefined; authorization: string | undefined; socket: unknown }[] = [];
const servers: (Server | TcpServer)[] = [];
const urls: string[] = [];
let silent: string;

function listen(server: Server | TcpServer): Promise<string> {
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`);
    }),
  );
}

before(async () => {
  for (const status of [200, 429]) {
    const server = createServer((req: IncomingMessage, res) => {
      seen.push({ path: req.url, authorization: req.headers.authorization, socket: req.socket });
      res.writeHead(status, { 'content-type': 'text/plain' }).end('x'.repeat(50_000));
    });
    urls.push(await listen(server));
  }
  // Accepts and hangs up without a word.
  silent = await listen(createTcpServer((socket) => socket.destroy()));
});
after(() => {
  for (const server of servers) server.close();
});

test('counts the answers by status, the requests spread over the URLs in turn, each on a connection of its own', async () => {
  seen.length = 0;
  const counts = await burst(urls, 7, 'tok', { path: '/v1/pets?limit=1' });
  assert.deepEqual(counts, { 200: 4, 429: 3 });
  assert.equal(seen.length, 7);
  assert.equal(new Set(seen.map((request) => request.socket)).size, 7, 'no connection reused');
  assert.deepEqual(new Set(seen.map((request) => request.path)), new Set(['/v1/pets?limit=1']));
  assert.deepEqual(new Set(seen.map((request) => request.authorization)), new Set(['Bearer tok']));
});

test('a request without an answer counts as 0, and the reasons are told once', async () => {
  const told: Record<string, number>[] = [];
  const counts = await burst([urls[0] as string, silent], 4, 'tok', { onNoAnswer: (reasons) => told.push(reasons) });
  assert.deepEqual(counts, { 0: 2, 200: 2 });
  assert.equal(told.length, 1);
  assert.equal(
    Object.values(told[0] ?? {}).reduce((sum, n) => sum + n, 0),
    2,
  );
});

test('a silent connection ends at the timeout', async () => {
  const hanging = createTcpServer(() => {});
  const url = await listen(hanging);
  const told: Record<string, number>[] = [];
  assert.deepEqual(await burst([url], 2, 'tok', { timeoutMs: 50, onNoAnswer: (reasons) => told.push(reasons) }), { 0: 2 });
  assert.deepEqual(told, [{ 'no answer in 50 ms': 2 }]);
});
