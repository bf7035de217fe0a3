import type { Server } from 'node:http';

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
