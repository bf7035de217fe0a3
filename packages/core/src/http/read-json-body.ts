import type { IncomingMessage } from 'node:http';
import { BodyOverLimit, collectBody } from '@animal-store/http-kit';
import { HttpError } from '../errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** True for `application/json`, with at most a `charset=utf-8` parameter. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type, ...params] = header.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every((param) => param === '' || /^charset="?utf-8"?$/.test(param));
}

/**
 * Reads and parses a JSON request body of at most `limitBytes`. Refuses a wrong content type (415)
 * before reading, a declared or actual size over the limit (413) without buffering it, and bytes
 * that are not UTF-8 JSON (400).
 */
export async function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type'])) throw new HttpError('unsupported_media_type');
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limitBytes) throw tooLarge(limitBytes);

  let body: Buffer;
  try {
    // Not `for await`: leaving it early destroys the socket, and the 413 with it.
    body = await collectBody(req, limitBytes);
  } catch (error) {
    if (error instanceof BodyOverLimit) throw tooLarge(limitBytes);
    throw error;
  }
  if (body.length === 0) throw new HttpError('invalid_json', 'The request body is empty; a NewPet is required.');

  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new HttpError('invalid_json', 'The request body is not valid UTF-8.');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpError('invalid_json', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

function tooLarge(limitBytes: number): HttpError {
  // The rest of the body is not read; closing the connection is the only safe way to skip it.
  return new HttpError('payload_too_large', `The request body is larger than ${limitBytes} bytes.`, {
    connection: 'close',
  });
}
