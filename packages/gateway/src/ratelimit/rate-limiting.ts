import type { Identity } from '../auth/index.js';
import { anonymousSubject, type Plans } from './plans.js';
import { heldDecision, minuteAndDay, type Limiter, type Policy, type RateDecision } from './policy.js';

/** The pipeline's view: decide for a verified identity, or for an anonymous client address. */
export interface RateLimiting {
  /**
   * True when `forIdentity` also checks the key against the Redis deny-list, in the same round
   * trip (a revoked key's decision says `revoked`): the authenticator then leaves Redis alone.
   */
  readonly checksRevocation: boolean;
  forIdentity(identity: Identity): Promise<RateDecision>;
  /**
   * What `forIdentity` would decide now, charging nothing (`GET /v1/usage`): the same code on the
   * same state, read only. Checks revocation as `forIdentity` does.
   */
  peekIdentity(identity: Identity): Promise<RateDecision>;
  /** The usage endpoint's own small limit, per key (`USAGE_POLICY`), so it cannot be used to flood. */
  forUsage(identity: Identity): Promise<RateDecision>;
  forAnonymous(clientIp: string): Promise<RateDecision>;
  /**
   * Asked before checking the signature of a key not seen before: `undefined` lets the check run;
   * a decision is the client address's anonymous refusal, to answer with instead. While an address
   * is refused under the anonymous limit (a key guesser is: every bad key is an anonymous request),
   * it gets `VERIFICATIONS_PER_SECOND` checks a second, so it cannot make the gateway verify
   * signatures as fast as it can send them, and new valid keys from a shared address still pass.
   */
  anonymousRefusal(clientIp: string): RateDecision | undefined;
}

/** `GET /v1/usage` per key: it is cheap but not free (a read of Redis), and polling it a second is plenty. */
export const USAGE_POLICY: Policy = minuteAndDay('usage', 60, 2_000);

/** Signature checks a second for an address refused under the anonymous limit. */
export const VERIFICATIONS_PER_SECOND = 10;
const MAX_REMEMBERED = 100_000;

interface Refusal {
  decision: RateDecision;
  /** When the decision was made and when it ends, on this process's clock. */
  cachedAt: number;
  endsAt: number;
  /** Signature checks let through in the second that began at `checksSince`. */
  checks: number;
  checksSince: number;
}

/** Limits per account (`sub`) with bans per key (`jti`); anonymous requests per client IP. */
export function createRateLimiting(limiter: Limiter, plans: Plans, now: () => number = Date.now, options: { readonly checksRevocation?: boolean } = {}): RateLimiting {
  const refusals = new Map<string, Refusal>();
  const checkRevoked = options.checksRevocation === true;
  return {
    checksRevocation: checkRevoked,
    forIdentity: (identity) => limiter.check({ subject: identity.subject, keyId: identity.keyId, policy: plans.forIdentity(identity), checkRevoked }),
    peekIdentity: (identity) => limiter.check({ subject: identity.subject, keyId: identity.keyId, policy: plans.forIdentity(identity), checkRevoked, peek: true }),
    // A subject of its own per key, and no key id: the usage limit neither reads nor makes bans.
    forUsage: (identity) => limiter.check({ subject: `usage:${identity.keyId}`, keyId: undefined, policy: USAGE_POLICY }),
    async forAnonymous(clientIp) {
      const subject = anonymousSubject(clientIp);
      const decision = await limiter.check({ subject, keyId: undefined, policy: plans.anonymous() });
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
        if (refusals.size >= MAX_REMEMBERED) refusals.clear();
        refusals.set(subject, { decision, cachedAt: at, endsAt, checks: 0, checksSince: at });
      }
      return decision;
    },
    anonymousRefusal(clientIp) {
      const subject = anonymousSubject(clientIp);
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
    },
  };
}
