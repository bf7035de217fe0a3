import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How much of an unread body is still taken in after an early answer, and for how long. */
export interface LingerLimits {
  readonly maxBytes: number;
  readonly maxMs: number;
}

/** nginx's idea (lingering_close) with tighter bounds: enough for an upload in flight to end. */
export const DEFAULT_LINGER: LingerLimits = { maxBytes: 4 * 1024 * 1024, maxMs: 2000 };

/** True when the request announced a body that has not been read to its end. */
export function bodyUnread(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * For an answer written before the request's body was read to its end (a 401, 404 or 413, say):
 * the answer says `Connection: close` (the caller adds the header), and once it is written the
 * connection is closed in a bounded way instead of draining the body to its end, however large:
 * our side is shut (the answer and a FIN go out), the rest of the body is read and dropped for at
 * most `limits.maxBytes` and `limits.maxMs` — so a client still sending receives its answer
 * rather than a reset — and then the socket is destroyed, whatever the client does.
 */
export function lingerAfterAnswer(req: IncomingMessage, res: ServerResponse, limits: LingerLimits = DEFAULT_LINGER): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  // Node calls destroySoon once an answer with `Connection: close` is written; its own version
  // destroys the socket as soon as the FIN is out, and bytes still arriving then draw a reset.
  socket.destroySoon = () => {
    let read = 0;
    const stop = () => {
      clearTimeout(timer);
      socket.destroy();
    };
    const timer = setTimeout(stop, limits.maxMs);
    timer.unref();
    socket.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > limits.maxBytes) stop();
    });
    socket.once('end', stop);
    socket.end();
    // The parser may have paused the socket for a body nobody reads: keep taking it in, dropped.
    req.resume();
    socket.resume();
  };
  res.once('close', () => {
    // Closed before the answer was written (the client left): nothing to linger for.
    if (!res.writableFinished) socket.destroy();
  });
}

/** The body so far is over the limit; the rest is left unread (and the socket left whole). */
export class BodyOverLimit extends Error {
  constructor(readonly limitBytes: number) {
    super(`The request body is larger than ${limitBytes} bytes.`);
    this.name = 'BodyOverLimit';
  }
}

/** The client closed the connection before the body ended. */
export class BodyAborted extends Error {
  constructor() {
    super('the client closed the connection before the body ended');
    this.name = 'BodyAborted';
  }
}

/**
 * Reads the request body to its end, up to `limitBytes`. Over the limit it stops listening and
 * rejects with `BodyOverLimit` without destroying anything, so the caller can still answer 413
 * (then `lingerAfterAnswer`). Unlike `for await` over the request, which destroys the socket when
 * the loop is left early, taking the answer with it.
 */
export function collectBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        cleanup();
        reject(new BodyOverLimit(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onClose = () => {
      cleanup();
      reject(new BodyAborted());
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onError);
  });
}
