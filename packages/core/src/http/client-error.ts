import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody, type ErrorCode } from '../errors.js';

/**
 * Answers a request Node's parser refused (malformed, headers too large, too slow to arrive) with
 * an Error body where the socket still takes one, then closes the connection.
 */
export function handleClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const body = errorBody(codeFor(error.code));
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}\r\nconnection: close\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
  );
}

function codeFor(nodeCode: string | undefined): ErrorCode {
  if (nodeCode === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  if (nodeCode === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  return 'bad_request';
}
