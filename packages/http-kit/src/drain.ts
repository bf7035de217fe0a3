import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';

const IDLE_SWEEP_MS = 50;

/**
 * Graceful stop: no new connections, requests in flight finish, keep-alive sockets close as soon
 * as they fall idle (answers given while draining say `Connection: close`), and whatever is still
 * open at the deadline is cut. Resolves when the server has closed.
 */
export function drain(server: Server, deadlineMs: number): Promise<void> {
  return new Promise((resolve) => {
    server.prependListener('request', (_req, res) => res.setHeader('connection', 'close'));
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => server.closeAllConnections(), deadlineMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * Hands a listener over to its successor (a rolling reload, the successor already listening on the
 * same port): no new connections, and no request of a keep-alive client fails. Unlike `drain`, an
 * idle connection is not closed at once: a client may be sending its next request on it that very
 * moment, and would see the connection reset. Instead each connection's next answer says
 * `Connection: close` (the client opens its next connection to the successor), and a connection
 * that stays idle is closed by the server's keep-alive timeout, which the client was told in the
 * `Keep-Alive: timeout=…` header and does not reuse it past. What is still open at the deadline is
 * cut. Resolves when the last connection has closed.
 */
export function handOver(server: Server, deadlineMs: number): Promise<void> {
  return new Promise((resolve) => {
    server.prependListener('request', (_req, res) => res.setHeader('connection', 'close'));
    const deadline = setTimeout(() => server.closeAllConnections(), deadlineMs);
    // net.Server's own close stops listening and leaves the connections alone; http.Server's
    // would close the idle ones at once.
    NetServer.prototype.close.call(server, () => {
      clearTimeout(deadline);
      resolve();
    });
  });
}
