import type { ServerResponse } from 'node:http';
import { bodyUnread, lingerAfterAnswer } from '@animal-store/http-kit';
import { HttpError } from '../errors.js';

/** What a route answers; the server turns it into bytes in one place. */
export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Writes `reply` as JSON with an exact Content-Length. An answer given before the request's body
 * was read to its end closes the connection, in bounded time, rather than draining that body.
 */
export function sendReply(res: ServerResponse, reply: Reply): void {
  const payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
  const headers: Record<string, string | number> = { ...reply.headers };
  if (bodyUnread(res.req)) {
    headers.connection = 'close';
    lingerAfterAnswer(res.req, res);
  }
  if (payload !== '') {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(payload);
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}

/** Writes the Error body of `error`, with its extra headers. */
export function sendError(res: ServerResponse, error: HttpError): void {
  sendReply(res, { status: error.status, body: error.toBody(), headers: error.headers });
}
