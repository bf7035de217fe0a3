import { BodyTooLargeError, readBody } from '../../http/read-body.js';
import { refuse } from '../answer.js';
import type { Step } from '../exchange.js';

/**
 * The body, buffered whole before anything reaches the upstream: one over the limit is refused
 * with 413. A method that carries a body gets an explicit empty one, never Node's empty chunked message.
 */
export function createBodyStep(limitBytes: number): Step {
  return async function body(x) {
    try {
      x.body = await readBody(x.req, limitBytes);
    } catch (failure) {
      if (!(failure instanceof BodyTooLargeError)) throw failure;
      // The unread rest of the body makes the connection unusable.
      return refuse('payload_too_large', failure.message, { connection: 'close' });
    }
    if (x.body === undefined && x.method !== 'GET' && x.method !== 'HEAD') x.body = Buffer.alloc(0);
    return undefined;
  };
}
