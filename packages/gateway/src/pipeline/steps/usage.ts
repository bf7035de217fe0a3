import { RevocationsUnavailableError } from '../../auth/index.js';
import { rateLimitHeaders, RateLimitUnavailableError, type RateDecision, type RateLimiting } from '../../ratelimit/index.js';
import { usageBody } from '../../usage/index.js';
import { refuse, type Answer } from '../answer.js';
import { AUTH_UNAVAILABLE } from '../auth-answers.js';
import type { Exchange, Step } from '../exchange.js';
import { applyLimit } from '../limit-decision.js';
import { settleAuth, type KeyGuard } from './key-guard.js';

/**
 * `GET /v1/usage`, answered here for the verified key: first the endpoint's own small limit (its
 * refusal is the answer, the plan untouched), then a peek at the plan by the code that decides
 * requests, which charges nothing. Its rate-limit headers are the plan's own windows, uncharged
 * (no Retry-After: the answer itself is no refusal, and a ban is in the body); the operations'
 * ceilings are in the body only.
 */
export function createUsageStep(rateLimiting: RateLimiting | undefined, guard: KeyGuard): Step {
  return function usage(x) {
    return x.operation?.answeredBy === 'gateway' ? answer(x) : undefined;
  };

  async function answer(x: Exchange): Promise<Answer> {
    const identity = x.identity;
    if (identity === undefined) return refuse('not_found', 'GET /v1/usage reports on an API key, and this gateway checks none (AUTH=off).');
    if (rateLimiting === undefined) return { kind: 'json', status: 200, body: usageBody(identity, undefined), outcome: 'usage' };
    const verdict = await applyLimit(x, () => rateLimiting.forUsage(identity), 'usage');
    if (verdict.kind !== 'admitted') {
      // The usage limit asks no deny-list: the key's outcome is the one its verification had.
      settleAuth(x, 'authenticated');
      return verdict.kind === 'refused' ? verdict.answer : refuse('unauthorized');
    }
    let peek: RateDecision;
    try {
      peek = await rateLimiting.peekIdentity(identity);
    } catch (failure) {
      if (failure instanceof RevocationsUnavailableError) return AUTH_UNAVAILABLE;
      if (failure instanceof RateLimitUnavailableError) return refuse('rate_limit_unavailable', undefined, { 'retry-after': '1' });
      throw failure;
    }
    settleAuth(x, peek.revoked ? 'revoked' : 'authenticated');
    if (peek.revoked) return guard.answerRevoked(x);
    // The plan's own windows only: the ceilings are in the body. With every ceiling in them, the
    // head grew with the plans file (169 KB with 3,000), past what clients read (16 KB in Node).
    const own = { ...peek, windows: peek.windows.filter((window) => window.layer === undefined) };
    const { 'retry-after': _notARefusal, ...headers } = rateLimitHeaders(own);
    Object.assign(x.headers, headers);
    return { kind: 'json', status: 200, body: usageBody(identity, peek, rateLimiting.termsOf(identity)), outcome: 'usage' };
  }
}
