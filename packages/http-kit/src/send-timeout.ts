import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** nginx's `send_timeout` is 60 s; a client that takes nothing for 30 s is not reading. */
export const DEFAULT_SEND_TIMEOUT_MS = 30_000;

/**
 * Bounds the time a connection may sit with nothing read from it nor written to it: a client
 * that stops reading an answer (a large one, or many pipelined) holds a descriptor of ours only
 * about `ms` past the last byte it took. Node's own timeouts do not cover it: `headersTimeout`
 * and `requestTimeout` end once the request is read, and `keepAliveTimeout` starts only once the
 * answer is written, which it never is. A write that is still making progress keeps the socket:
 * Node then skips one expiry of the socket's timer (its write queue changed since it was armed),
 * so the timer is armed for half of `ms`, and a client that took its last byte just before that
 * skip is cut between `ms / 2` and `ms` later. While the service is still working on the answer (nothing
 * of it sent yet: a slow upstream has its own timeout), the socket is kept too; once the answer
 * has started, or when no request is in flight, it is destroyed.
 *
 * With this listener in place Node no longer destroys timed-out sockets by itself, idle
 * keep-alive ones included: this does it for all of them.
 */
export function limitSendTime(server: Server, ms: number = DEFAULT_SEND_TIMEOUT_MS): void {
  const answering = new WeakMap<Socket, ServerResponse>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    answering.set(req.socket, res);
    res.once('finish', () => {
      if (answering.get(req.socket) === res) answering.delete(req.socket);
    });
  });
  const half = Math.max(1, Math.round(ms / 2));
  server.setTimeout(half, (socket: Socket) => {
    const res = answering.get(socket);
    // Working on it: the request is read and nothing is sent yet. Look again later.
    if (res !== undefined && !res.headersSent && !res.destroyed) return void socket.setTimeout(half);
    socket.destroy();
  });
}
