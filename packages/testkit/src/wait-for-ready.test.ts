import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, test } from 'node:test';
import { freePort } from './free-port.js';
import { waitForReady } from './wait-for-ready.js';

// The one wait for /readyz: it asks until 200, each time on a fresh connection, and gives up
// after its time naming the last answer.

const servers: Server[] = [];
after(() => {
  for (const server of servers) server.close();
});

async function serve(answer: (asked: number) => number, delayMs = 0): Promise<{ url: string; sockets: Set<unknown>; asked: () => number }> {
  let asked = 0;
  const sockets = new Set<unknown>();
  const server = createServer((req, res) => {
    sockets.add(req.socket);
    const status = req.url === '/readyz' ? answer(++asked) : 404;
    setTimeout(() => res.writeHead(status).end(), delayMs);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`, sockets, asked: () => asked };
}

test('resolves once /readyz answers 200, each question on a connection of its own', async () => {
  const service = await serve((asked) => (asked < 3 ? 503 : 200));
  await waitForReady(service.url, 5_000);
  assert.equal(service.asked(), 3);
  assert.equal(service.sockets.size, 3);
});

test('gives up after its time, naming the last answer', async () => {
  const never = await serve(() => 503);
  await assert.rejects(waitForReady(never.url, 100), /did not become ready within 100 ms \(\/readyz: status 503\)/);
  const nobody = `http://127.0.0.1:${await freePort()}`;
  await assert.rejects(waitForReady(nobody, 100), /\(\/readyz: ECONNREFUSED\)/);
});

test('a last question that the deadline cuts short does not hide the answer before it', async () => {
  // Each answer takes 40 ms, so the question asked with less than that left times out at the
  // deadline: the error still names the service's last answer, not the cut.
  const slow = await serve(() => 503, 40);
  await assert.rejects(waitForReady(slow.url, 100), /did not become ready within 100 ms \(\/readyz: status 503\)/);
});
