import type { ServerResponse } from 'node:http';
import { errorBody, type ErrorCode } from '../errors.js';

/** Writes a JSON answer with an exact Content-Length, after the gateway's own headers. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>>): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
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
