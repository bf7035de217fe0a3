import assert from 'node:assert/strict';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { handOver } from '../src/drain.js';

/**
 * Two servers on one port (SO_REUSEPORT: the kernel gives each new connection to one of them), as
 * an old worker and its successor share the cluster's socket, under a keep-alive load of 32
 * connections. Halfway, `stop` is called on the first. Resolves with what the clients saw.
 */
async function loadThrough(stop: (server: Server) => Promise<void>): Promise<{ failures: string[]; statuses: Map<number, number>; servedByOld: number }> {
  let servedByOld = 0;
  const answer = (old: boolean) => (_req: unknown, res: import('node:http').ServerResponse) => {
    if (old) servedByOld += 1;
    setImmediate(() => res.end('ok'));
  };
  const old = createServer({ keepAliveTimeout: 5000 }, answer(true));
  await new Promise<void>((resolve) => old.listen({ port: 0, host: '127.0.0.1', reusePort: true }, resolve));
  const { port } = old.address() as AddressInfo;
  const successor = createServer({ keepAliveTimeout: 5000 }, answer(false));
  await new Promise<void>((resolve) => successor.listen({ port, host: '127.0.0.1', reusePort: true }, resolve));

  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  const total = 4000;
  let sent = 0;
  let stopped: Promise<void> | undefined;
  const once = () =>
    new Promise<void>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
        statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1);
        res.resume();
        res.on('end', resolve);
        res.on('error', (error) => (failures.push(error.message), resolve()));
      });
      req.on('error', (error: NodeJS.ErrnoException) => (failures.push(error.code ?? error.message), resolve()));
      req.end();
    });
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (sent < total) {
        sent += 1;
        if (sent === total / 2) stopped = stop(old);
        await once();
      }
    }),
  );
  await stopped;
  agent.destroy();
  successor.closeAllConnections();
  successor.close();
  return { failures, statuses, servedByOld };
}

test('handOver: a keep-alive load loses no request while the listener goes to its successor, and the old server closes', async () => {
  const seen = await loadThrough((server) => handOver(server, 10_000));
  assert.deepEqual(seen.failures, []);
  assert.deepEqual([...seen.statuses], [[200, 4000]]);
  assert.ok(seen.servedByOld > 0, 'the old server had connections when it handed over');
});
