import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { DEFAULT_LINGER } from './early-answer.js';

/** The Error body both services use: `status` equals the HTTP status. */
export interface ErrorBodyShape {
  readonly code: string;
  readonly message: string;
  readonly status: number;
}

/** What Node's parser refused a request for, in the terms of the services' error tables. */
export type ClientErrorKind = 'bad_request' | 'request_timeout' | 'headers_too_large';

/** Maps a `clientError` from Node's HTTP parser to the kind of answer it deserves. */
export function clientErrorKind(error: NodeJS.ErrnoException): ClientErrorKind {
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  return 'bad_request';
}

/** More headers for a parser's answer (the gateway's rate-limit state, say); may take a moment. */
export type ClientErrorHeaders = (
  kind: ClientErrorKind,
  error: NodeJS.ErrnoException & { rawPacket?: Buffer },
  socket: Duplex,
) => Promise<Record<string, string>>;

/** Called once a parser's answer was written: for the access log and metrics every answer has. */
export type ClientErrorAnswered = (kind: ClientErrorKind, status: number, error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => void;

/**
 * A `clientError` listener: answers a request Node's parser refused (malformed, headers too large,
 * too slow to arrive) with the Error body `bodyFor` gives, where the socket still takes an answer,
 * then closes the connection. A reset socket is simply destroyed, and so is one whose client has
 * not closed its side `DEFAULT_LINGER.maxMs` after the answer: a client that never reads nor
 * closes must not hold a descriptor of ours for as long as it likes.
 */
export function createClientErrorHandler(
  bodyFor: (kind: ClientErrorKind) => ErrorBodyShape,
  headersFor?: ClientErrorHeaders,
  onAnswered?: ClientErrorAnswered,
) {
  return function onClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const kind = clientErrorKind(error);
    const answer = (headers: Record<string, string>) => {
      if (!socket.writable) return void socket.destroy();
      const body = bodyFor(kind);
      const json = JSON.stringify(body);
      const extra = Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.end(
        `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}\r\nconnection: close\r\n${extra}` +
          `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
      );
      const timer = setTimeout(() => socket.destroy(), DEFAULT_LINGER.maxMs);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
      onAnswered?.(kind, body.status, error, socket);
    };
    if (headersFor === undefined) return answer({});
    headersFor(kind, error, socket).then(answer, () => answer({}));
  };
}
