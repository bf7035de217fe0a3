import { RevocationsUnavailableError, type Identity } from '../auth/index.js';
import { publishLimitDecision, type LimitDecisionKind } from '../events/index.js';
import { isDegraded, rateLimitHeaders, RateLimitUnavailableError, USAGE_POLICY, type RateDecision } from '../ratelimit/index.js';
import { refuse, type Answer } from './answer.js';
import { AUTH_UNAVAILABLE } from './auth-answers.js';
import type { Exchange } from './exchange.js';

/** What a limit decision means for the request. */
export type LimitVerdict =
  /** Admitted: its headers joined the exchange's. */
  | { readonly kind: 'admitted' }
  /** Refused (or unavailable): answer with this. */
  | { readonly kind: 'refused'; readonly answer: Answer }
  /** The key was found revoked in the limit's own round trip: nothing sent, nothing charged. */
  | { readonly kind: 'revoked' };

const ADMITTED: LimitVerdict = { kind: 'admitted' };
const REVOKED: LimitVerdict = { kind: 'revoked' };

/**
 * Asks `decide` and applies its decision (see `applyDecision`). A limit that cannot be asked
 * (Redis away with `closed`, or a deny-list never copied) is answered 503 with its own code.
 */
export async function applyLimit(x: Exchange, decide: () => Promise<RateDecision>, plan: string): Promise<LimitVerdict> {
  const startedAt = performance.now();
  let decided: RateDecision;
  try {
    decided = await decide();
  } catch (failure) {
    if (failure instanceof RevocationsUnavailableError) {
      x.record.authFailure = `revocations: ${String(failure.cause)}`;
      return { kind: 'refused', answer: AUTH_UNAVAILABLE };
    }
    if (!(failure instanceof RateLimitUnavailableError)) throw failure;
    x.record.degraded = true;
    recordDecision(x, 'unavailable', plan, startedAt);
    return { kind: 'refused', answer: refuse('rate_limit_unavailable', undefined, { 'retry-after': '1' }) };
  }
  return applyDecision(x, decided, startedAt);
}

/**
 * Applies a decision to the request, publishing it (`limit decision` event) and recording it: an
 * admission's rate-limit headers join every answer from here on; a refusal is the answer, whose
 * headers, body and message the writer derives from the decision itself.
 */
export function applyDecision(x: Exchange, decided: RateDecision, startedAt: number): LimitVerdict {
  if (decided.revoked) return REVOKED;
  if (isDegraded(decided)) x.record.degraded = true;
  const { policy } = decided;
  const key = policy.anonymous === true || policy === USAGE_POLICY ? undefined : x.identity;
  recordDecision(x, eventKindOf(decided), policy.name, startedAt, key);
  if (!decided.allowed) return { kind: 'refused', answer: { kind: 'limited', decision: decided } };
  Object.assign(x.headers, rateLimitHeaders(decided));
  return ADMITTED;
}

/** `identity`: the key whose own plan decided, if it was its plan (not its address's or the usage endpoint's limit). */
function recordDecision(x: Exchange, kind: LimitDecisionKind, plan: string, startedAt: number, identity?: Identity): void {
  x.record.plan = plan;
  x.record.decision = kind;
  if (publishLimitDecision.active)
    publishLimitDecision({ request: x.record, plan, identity, decision: kind, startedAt, durationMs: performance.now() - startedAt });
}

/** The decision as an operator counts them: what a failure policy answered is named after it. */
function eventKindOf(decided: RateDecision): LimitDecisionKind {
  if (decided.shadow === true) return 'shadow_limited';
  if (decided.source === 'local') return 'local';
  if (decided.source === 'open') return 'fail_open';
  // `revoked` never comes here (applyDecision answers it first); the branch keeps the type whole.
  return decided.kind === 'revoked' ? 'limited' : decided.kind;
}
