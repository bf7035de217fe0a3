import type { ServerResponse } from 'node:http';
import { errorBody, type ErrorCode } from '../errors.js';

/**
 * Writes a JSON answer with an exact Content-Length, after the gateway's own headers. The headers
 * go to `writeHead` as a flat `[name, value, …]` list: given an object, Node normalises and
 * stores every header one by one first, which made a 429 cost about as much as a proxied answer.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>>): void {
  const payload = JSON.stringify(body);
  const list: string[] = [];
  for (const name in headers) {
    if (name !== 'content-type' && name !== 'content-length') list.push(name, headers[name] as string);
  }
  list.push('content-type', 'application/json', 'content-length', String(Buffer.byteLength(payload)));
  res.writeHead(status, list);
  res.end(payload);
}

/** Writes the Error body of `code`; every gateway-made error goes through here. */
export function sendError(
  res: ServerResponse,
  code: ErrorCode,
  headers: Readonly<Record<string, string>>,
  message?: string,
): void {
  const body = errorBody(code, message);
  sendJson(res, body.status, body, headers);
}
