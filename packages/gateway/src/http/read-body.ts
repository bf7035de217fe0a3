import type { IncomingMessage } from 'node:http';
import { BodyOverLimit, collectBody } from '@animal-store/http-kit';

/** The request body is over the limit; the rest of it is left unread. */
export class BodyTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`The request body is larger than ${limitBytes} bytes.`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Buffers the request body, up to `limitBytes`, before anything reaches the upstream: a body over
 * the limit is refused while the upstream has seen nothing, and the upstream always gets an exact
 * `Content-Length` (never the client's chunked framing, which is how proxy smuggling starts).
 * Resolves `undefined` for a request without a body.
 */
export async function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer | undefined> {
  const declared = req.headers['content-length'];
  if (declared === undefined && req.headers['transfer-encoding'] === undefined) return undefined;
  if (declared !== undefined && Number(declared) > limitBytes) throw new BodyTooLargeError(limitBytes);
  try {
    // Not `for await`: leaving it early destroys the socket, and the 413 with it.
    return await collectBody(req, limitBytes);
  } catch (error) {
    if (error instanceof BodyOverLimit) throw new BodyTooLargeError(limitBytes);
    throw error;
  }
}
