import type { Step } from '../exchange.js';
import type { KeyGuard } from './key-guard.js';

/**
 * The rate limit: a verified key is limited per account (and banned per key); a request without
 * identity (AUTH=off, an operation without security) per client address. Its headers join every
 * answer from here on; a refusal is the answer.
 */
export function createRateLimitStep(guard: KeyGuard): Step {
  return function rateLimit(x) {
    return x.identity === undefined ? guard.chargeAnonymous(x) : guard.limitKey(x);
  };
}
