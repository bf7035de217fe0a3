import type { ServerResponse } from 'node:http';
import { bodyUnread, lingerAfterAnswer } from '@animal-store/http-kit';
import { errorBody, type ErrorCode } from '../errors.js';
import { problemDetails, wantsProblemDetails } from './problem-details.js';

/**
 * Writes a JSON answer with an exact Content-Length, after the gateway's own headers. The headers
 * go to `writeHead` as a flat `[name, value, …]` list: given an object, Node normalises and
 * stores every header one by one first, which made a 429 cost about as much as a proxied answer.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>>,
  contentType = 'application/json',
): void {
  const payload = JSON.stringify(body);
  const list: string[] = [];
  for (const name in headers) {
    if (name !== 'content-type' && name !== 'content-length' && name !== 'connection') list.push(name, headers[name] as string);
  }
  // Answered before the body was read to its end (a 401, 404 or 413): close the connection in
  // bounded time rather than drain a body of any size; a client still sending gets the answer.
  if (bodyUnread(res.req)) {
    list.push('connection', 'close');
    lingerAfterAnswer(res.req, res);
  } else if (headers.connection !== undefined) {
    list.push('connection', headers.connection);
  }
  list.push('content-type', contentType, 'content-length', String(Buffer.byteLength(payload)));
  res.writeHead(status, list);
  res.end(payload);
}

/**
 * Writes the Error body of `code`; every gateway-made error goes through here. A request whose
 * `Accept` asks for `application/problem+json` gets RFC 9457 problem details instead, with the
 * same status, headers and code, and a 429's `violatedPolicies` (the windows that refused).
 */
export function sendError(
  res: ServerResponse,
  code: ErrorCode,
  headers: Readonly<Record<string, string>>,
  message?: string,
  violatedPolicies?: readonly string[],
): void {
  if (wantsProblemDetails(res.req?.headers.accept)) {
    const problem = problemDetails(code, message, violatedPolicies);
    sendJson(res, problem.status, problem, headers, 'application/problem+json');
    return;
  }
  const body = errorBody(code, message);
  sendJson(res, body.status, body, headers);
}
