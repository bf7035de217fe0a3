import { BodyTooLargeError, readBody } from '../../http/read-body.js';
import { refuse, type Answer } from '../answer.js';
import type { Exchange, Step } from '../exchange.js';

/**
 * The body, buffered whole before anything reaches the upstream: one over the limit is refused
 * with 413. A method that carries a body gets an explicit empty one, never Node's empty chunked message.
 */
export function createBodyStep(limitBytes: number): Step {
  return function body(x) {
    // Most requests have no body: nothing to wait for.
    if (x.req.headers['content-length'] === undefined && x.req.headers['transfer-encoding'] === undefined) {
      if (x.method !== 'GET' && x.method !== 'HEAD') x.body = Buffer.alloc(0);
      return undefined;
    }
    return buffered(x, limitBytes);
  };
}

async function buffered(x: Exchange, limitBytes: number): Promise<Answer | undefined> {
  try {
    x.body = await readBody(x.req, limitBytes);
  } catch (failure) {
    if (!(failure instanceof BodyTooLargeError)) throw failure;
    // The unread rest of the body makes the connection unusable.
    return refuse('payload_too_large', failure.message, { connection: 'close' });
  }
  if (x.body === undefined && x.method !== 'GET' && x.method !== 'HEAD') x.body = Buffer.alloc(0);
  return undefined;
}
