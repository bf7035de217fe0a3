import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { endlessUpload, redisSkipReason } from '@animal-store/testkit';
import { startStack, type Stack } from './stack.js';

// Hostile suite: bodies nobody will read. An early answer (404, 401, 413) goes out while the
// client is still sending, and the connection is then closed within bounded time and bytes
// instead of the gateway draining a body of any size. A client still sending gets its answer,
// not a reset. Against a gateway process with default settings (keys, limits in Redis).

/** The gateway's CPU time so far (user + system), in ms, from /proc/<pid>/stat. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks: 100 a second on Linux
}

/** Sends `head` and a chunked body of `bytes`, as fast as the connection takes it, and resolves with what came back before the socket ended or was reset. */
function chunkedUpload(port: number, head: string, bytes: number): Promise<{ reply: string; reset: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    let reset = false;
    socket.on('connect', () => {
      socket.write(head);
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let left = bytes;
      const pump = () => {
        while (left > 0) {
          left -= chunk.length;
          if (!socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString('latin1')}\r\n`)) return void socket.once('drain', pump);
        }
        socket.write('0\r\n\r\n');
      };
      pump();
    });
    socket.on('data', (data) => (reply += data.toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) => (reset = error.code === 'ECONNRESET' || error.code === 'EPIPE'));
    socket.on('close', () => resolve({ reply, reset }));
    setTimeout(() => socket.destroy(), 10_000).unref();
  });
}

describe('hostile unread bodies against a gateway process', { skip: redisSkipReason() }, () => {
  let stack: Stack;
  let port: number;
  let pid: number;

  before(async () => {
    stack = await startStack({ gateways: 1 });
    const gateway = stack.gateways[0] as Stack['gateways'][number];
    port = gateway.port;
    pid = gateway.pid;
  });
  after(async () => {
    await stack?.close();
  });

  const CASES: [name: string, head: string, status: number][] = [
    ['a 256 MiB body to an unknown path', 'POST /v1/nowhere HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 268435456\r\n\r\n', 404],
    ['an unauthenticated 256 MiB POST', 'POST /v1/pets HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 268435456\r\n\r\n', 401],
  ];
  for (const [name, head, status] of CASES) {
    test(`${name}: the ${status} arrives while the client sends, then the connection closes within 4 s and a few MiB`, async () => {
      const cpuBefore = cpuMs(pid);
      const { reply, sent, closedAfterMs } = await endlessUpload(port, head, 8000);
      const cpu = cpuMs(pid) - cpuBefore;
      console.log(
        `# ${name}: answered ${reply.split('\r\n')[0]}, closed after ${closedAfterMs?.toFixed(0)} ms, the client got ${(sent / 1048576).toFixed(1)} MiB out, the gateway spent ${cpu.toFixed(0)} ms of CPU`,
      );
      assert.match(reply, new RegExp(`^HTTP/1\\.1 ${status} `));
      assert.match(reply, /\r\nconnection: close\r\n/i);
      assert.match(reply, new RegExp(`"status":${status}\\}$`), 'the whole Error body');
      assert.ok(closedAfterMs !== undefined && closedAfterMs < 4000, `closed after ${closedAfterMs} ms`);
      // At most the lingering 4 MiB are read; the rest is what the kernels' buffers held.
      assert.ok(sent < 48 * 1024 * 1024, `the client could send ${(sent / 1048576).toFixed(0)} MiB`);
    });
  }

  test('20 chunked uploads of 2 MiB with a valid key (the limit is 64 KiB): each gets its 413, none a reset', async () => {
    const token = await stack.unlimitedKey('hostile-uploads');
    const head = `POST /v1/pets HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) {
      const { reply, reset } = await chunkedUpload(port, head, 2 * 1024 * 1024);
      outcomes.push(reply.startsWith('HTTP/1.1 413 ') ? '413' : reset ? 'reset' : reply.split('\r\n')[0] || 'nothing');
    }
    assert.deepEqual(outcomes, Array(20).fill('413'));
  });
});
