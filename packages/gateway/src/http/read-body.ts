import type { IncomingMessage } from 'node:http';

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
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw new BodyTooLargeError(limitBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}
