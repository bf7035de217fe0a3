import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** nginx's `send_timeout` is 60 s; a client that takes nothing for 30 s is not reading. */
export const DEFAULT_SEND_TIMEOUT_MS = 30_000;

/**
 * Bounds the time a client that stops reading can hold a connection: once bytes of an answer
 * wait in the socket's write queue because the client does not take them (a large answer, or
 * many pipelined ones), the socket is destroyed about `ms` after the client took its last byte.
 * Node's own timeouts do not cover it: `headersTimeout` and `requestTimeout` end once the request
 * is read, and `keepAliveTimeout` starts only once the answer is written, which it never is.
 *
 * The socket's timer is armed for half of `ms`. A write that is still making progress keeps the
 * socket: Node then skips an expiry (the write queue changed since the last one), so a client
 * that took its last byte just before such a skip is cut between `ms / 2` and `ms` later. A
 * client on a slow link that keeps reading is never cut.
 *
 * Silence on our side is not bounded by it: while a request is in flight and nothing of ours is
 * queued for the client (the service is still working on the answer, or an answer already
 * started, such as a stream, SSE or a long poll, waits for more from its source), the timer is
 * armed again, however long that lasts. A quiet upstream is its own timeout's business. When no
 * request is in flight (an idle keep-alive connection, or one that never sent a request), the
 * socket is destroyed at the expiry.
 *
 * With this listener in place Node no longer destroys timed-out sockets by itself, idle
 * keep-alive ones included: this does it for all of them.
 */
export function limitSendTime(server: Server, ms: number = DEFAULT_SEND_TIMEOUT_MS): void {
  const answering = new WeakMap<Socket, ServerResponse>();
  // The socket's latest answer; one whose last byte went (`writableFinished`) is none under way.
  server.on('request', (req: IncomingMessage, res: ServerResponse) => void answering.set(req.socket, res));
  const half = Math.max(1, Math.round(ms / 2));
  server.setTimeout(half, (socket: Socket) => {
    const res = answering.get(socket);
    // An answer is under way and none of its bytes wait for the client: the client keeps up, the
    // wait is for the service or its upstream (before the headers or within a streamed body).
    if (res !== undefined && !res.writableFinished && !res.destroyed && socket.writableLength === 0) return void socket.setTimeout(half);
    // Our bytes wait and the client took none since the last expiry (Node skips an expiry while
    // the write queue moves), or the connection is idle.
    socket.destroy();
  });
}
