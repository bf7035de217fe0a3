import { RevocationsUnavailableError } from '../auth/index.js';
import { publishLimitDecision, type LimitDecisionKind } from '../events/index.js';
import { rateLimitHeaders, RateLimitUnavailableError, type FailurePolicy, type RateDecision } from '../ratelimit/index.js';
import { refuse, type Answer } from './answer.js';
import type { Exchange } from './exchange.js';

/** What a limit decision means for the request. */
export type LimitVerdict =
  /** Admitted: its headers joined the exchange's. */
  | { readonly kind: 'admitted' }
  /** Refused (or unavailable): answer with this. */
  | { readonly kind: 'refused'; readonly answer: Answer }
  /** The key was found revoked in the limit's own round trip: nothing sent, nothing charged. */
  | { readonly kind: 'revoked' };

/**
 * Asks `decide` and applies its decision: the rate-limit headers join every answer; a refusal
 * becomes the answer. Publishes the decision (`limit decision` event) and records it.
 */
export async function applyLimit(x: Exchange, decide: () => Promise<RateDecision>, onRedisFailure: FailurePolicy | 'off', plan: string): Promise<LimitVerdict> {
  const startedAt = performance.now();
  const decided = (kind: LimitDecisionKind, name: string) => {
    x.record.plan = name;
    x.record.decision = kind;
    publishLimitDecision({ request: x.record, plan: name, decision: kind, startedAt, durationMs: performance.now() - startedAt });
  };
  let decision: RateDecision;
  try {
    decision = await decide();
  } catch (failure) {
    if (failure instanceof RevocationsUnavailableError) {
      x.record.authFailure = `revocations: ${String(failure.cause)}`;
      return { kind: 'refused', answer: refuse('auth_unavailable', undefined, { 'retry-after': '1' }) };
    }
    if (!(failure instanceof RateLimitUnavailableError)) throw failure;
    x.record.degraded = true;
    decided('unavailable', plan);
    return { kind: 'refused', answer: refuse('rate_limit_unavailable', undefined, { 'retry-after': '1' }) };
  }
  if (decision.revoked === true) return { kind: 'revoked' };
  const headers = x.headers;
  Object.assign(headers, rateLimitHeaders(decision));
  if (decision.degraded === true) x.record.degraded = true;
  decided(kindOf(decision, onRedisFailure), decision.policy.name);
  if (decision.allowed) return { kind: 'admitted' };
  if (decision.banned) {
    return { kind: 'refused', answer: refuse('key_banned', `This API key is banned for ${headers['retry-after']} s for sending requests while rate limited.`) };
  }
  if (decision.retryAt === undefined) {
    return { kind: 'refused', answer: refuse('rate_limited', 'This request exceeds what the plan can ever admit; retrying will not help.') };
  }
  return { kind: 'refused', answer: refuse('rate_limited') };
}

function kindOf(decision: RateDecision, onRedisFailure: FailurePolicy | 'off'): LimitDecisionKind {
  if (decision.degraded === true) return onRedisFailure === 'local' ? 'local' : 'fail_open';
  if (decision.banned) return 'banned';
  return decision.allowed ? 'allowed' : 'limited';
}
