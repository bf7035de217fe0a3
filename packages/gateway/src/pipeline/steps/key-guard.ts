import { publishAuthOutcome, type AuthOutcomeEvent } from '../../events/index.js';
import { anonymousKey, DEFAULT_MAX_ADDRESSES, heldDecision, limitSubject, type RateDecision, type RateLimiting } from '../../ratelimit/index.js';
import type { Answer } from '../answer.js';
import { unauthorized } from '../auth-answers.js';
import { clientOf, type Exchange } from '../exchange.js';
import { applyLimit } from '../limit-decision.js';

/** Signature checks a second for an address refused under the anonymous limit. */
export const VERIFICATIONS_PER_SECOND = 10;

/**
 * The guard against key guessing, whole: every request without a valid key (no operation at its
 * path, no key, a bad or revoked key, a head too large to read) is charged to its client address's
 * anonymous limit; while an address is refused under it, keys never seen before get
 * `VERIFICATIONS_PER_SECOND` signature checks a second, so guessing costs the guesser, not the
 * gateway's CPU, and new valid keys from a shared address still pass.
 */
export interface KeyGuard {
  /** The address's anonymous decision, charged; a refusal is remembered for `refusalOf`. Absent with RATE_LIMITS=off. */
  readonly decideAnonymous: ((ip: string) => Promise<RateDecision>) | undefined;
  /** Charges the address's anonymous limit: an answer when it refuses. */
  chargeAnonymous(x: Exchange): Promise<Answer | undefined>;
  /**
   * Asked before checking the signature of a key not seen before: `undefined` lets the check run;
   * a decision is the address's remembered refusal, to answer with instead.
   */
  refusalOf(ip: string): RateDecision | undefined;
  /** The verified key's own limit; a key found revoked there is answered as any refused key. */
  limitKey(x: Exchange): Promise<Answer | undefined>;
  /** A key found revoked after it was verified: 401, or the address's 429 when that refuses first. */
  answerRevoked(x: Exchange): Promise<Answer>;
}

interface Refusal {
  decision: RateDecision;
  /** When the decision was made and when it ends, on this process's clock. */
  cachedAt: number;
  endsAt: number;
  /** Signature checks let through in the second that began at `checksSince`. */
  checks: number;
  checksSince: number;
}

/** Publishes the outcome of the request's key check, once it is known (see `Exchange.pendingAuth`). */
export function settleAuth(x: Exchange, outcome: AuthOutcomeEvent['outcome'], timing = x.pendingAuth): void {
  if (timing === undefined) return;
  x.pendingAuth = undefined;
  if (publishAuthOutcome.active) publishAuthOutcome({ request: x.record, outcome, ...timing });
}

/**
 * `maxRemembered`: refused addresses remembered at most (`RATE_LIMIT_MAX_ADDRESSES`, as the
 * in-process limiter's table): past it the memory starts again, so a flood of addresses that each
 * get refused costs a bounded amount of memory too.
 */
export function createKeyGuard(rateLimiting: RateLimiting | undefined, now: () => number, maxRemembered = DEFAULT_MAX_ADDRESSES): KeyGuard {
  const refusals = new Map<string, Refusal>();

  async function decideAnonymous(limits: RateLimiting, ip: string): Promise<RateDecision> {
    const decision = await limits.forAnonymous(ip);
    const subject = limitSubject(anonymousKey(ip));
    if (decision.allowed || decision.retryAt === undefined) {
      refusals.delete(subject);
      return decision;
    }
    const at = now();
    // retryAt is on the limiter's clock (Redis TIME): only its distance carries over.
    const endsAt = at + (decision.retryAt - decision.now);
    const known = refusals.get(subject);
    if (known !== undefined) {
      Object.assign(known, { decision, cachedAt: at, endsAt }); // its check budget carries on
    } else {
      if (refusals.size >= maxRemembered) refusals.clear();
      refusals.set(subject, { decision, cachedAt: at, endsAt, checks: 0, checksSince: at });
    }
    return decision;
  }

  async function chargeAnonymous(x: Exchange): Promise<Answer | undefined> {
    if (rateLimiting === undefined) return undefined;
    const { ip } = clientOf(x);
    const verdict = await applyLimit(x, () => decideAnonymous(rateLimiting, ip), 'anonymous');
    return verdict.kind === 'refused' ? verdict.answer : undefined;
  }

  function refusalOf(ip: string): RateDecision | undefined {
    const subject = limitSubject(anonymousKey(ip));
    const refusal = refusals.get(subject);
    if (refusal === undefined) return undefined;
    const at = now();
    if (refusal.endsAt <= at) {
      refusals.delete(subject);
      return undefined;
    }
    if (at - refusal.checksSince >= 1000) {
      refusal.checksSince = at;
      refusal.checks = 0;
    }
    // Counted here, before the check runs: concurrent requests cannot all slip through.
    if (refusal.checks < VERIFICATIONS_PER_SECOND) {
      refusal.checks += 1;
      return undefined;
    }
    return heldDecision(refusal.decision, refusal.cachedAt, at);
  }

  async function answerRevoked(x: Exchange): Promise<Answer> {
    x.record.authFailure = 'revoked';
    return (await chargeAnonymous(x)) ?? unauthorized(true);
  }

  return {
    decideAnonymous: rateLimiting === undefined ? undefined : (ip) => decideAnonymous(rateLimiting, ip),
    chargeAnonymous,
    refusalOf,
    answerRevoked,
    async limitKey(x) {
      const identity = x.identity;
      if (rateLimiting === undefined || identity === undefined) return undefined;
      let verdict;
      try {
        verdict = await applyLimit(x, () => rateLimiting.forIdentity(identity, x.operation?.operationId), identity.plan);
      } catch (failure) {
        settleAuth(x, 'authenticated');
        throw failure;
      }
      settleAuth(x, verdict.kind === 'revoked' ? 'revoked' : 'authenticated');
      if (verdict.kind === 'refused') return verdict.answer;
      return verdict.kind === 'admitted' ? undefined : answerRevoked(x);
    },
  };
}
