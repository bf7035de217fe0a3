import type { Identity } from '../auth/index.js';
import { anonymousSubject, type Plans } from './plans.js';
import type { Limiter, RateDecision } from './policy.js';

/** The pipeline's view: decide for a verified identity, or for an anonymous client address. */
export interface RateLimiting {
  forIdentity(identity: Identity): Promise<RateDecision>;
  forAnonymous(clientIp: string): Promise<RateDecision>;
  /**
   * The client address's last anonymous refusal while it still holds (at most a second, never past
   * its Retry-After), without asking the limiter; `undefined` otherwise. Asked before checking an
   * unknown key's signature, so a client over its anonymous limit (a key guesser: every bad key is
   * an anonymous request) cannot make the gateway verify signatures as fast as it can send them.
   */
  anonymousRefusal(clientIp: string): RateDecision | undefined;
}

/** How long an anonymous refusal is remembered at most: a raised limit is seen this soon. */
const REFUSAL_HOLD_MS = 1000;
const MAX_REMEMBERED = 100_000;

interface Refusal {
  readonly decision: RateDecision;
  /** On this process's clock. */
  readonly cachedAt: number;
  readonly until: number;
}

/** Limits per account (`sub`) with bans per key (`jti`); anonymous requests per client IP. */
export function createRateLimiting(limiter: Limiter, plans: Plans, now: () => number = Date.now): RateLimiting {
  const refusals = new Map<string, Refusal>();
  return {
    forIdentity: (identity) => limiter.check({ subject: identity.subject, keyId: identity.keyId, policy: plans.forIdentity(identity) }),
    async forAnonymous(clientIp) {
      const subject = anonymousSubject(clientIp);
      const decision = await limiter.check({ subject, keyId: undefined, policy: plans.anonymous() });
      if (decision.allowed || decision.retryAt === undefined) {
        refusals.delete(subject);
      } else {
        if (refusals.size >= MAX_REMEMBERED) refusals.clear();
        // retryAt is on the limiter's clock (Redis TIME): only its distance carries over.
        const at = now();
        refusals.set(subject, { decision, cachedAt: at, until: at + Math.min(decision.retryAt - decision.now, REFUSAL_HOLD_MS) });
      }
      return decision;
    },
    anonymousRefusal(clientIp) {
      const subject = anonymousSubject(clientIp);
      const refusal = refusals.get(subject);
      if (refusal === undefined) return undefined;
      const at = now();
      if (refusal.until <= at) {
        refusals.delete(subject);
        return undefined;
      }
      return { ...refusal.decision, now: refusal.decision.now + (at - refusal.cachedAt) };
    },
  };
}
