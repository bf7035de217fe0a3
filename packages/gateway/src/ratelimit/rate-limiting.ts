import type { Identity } from '../auth/index.js';
import { anonymousSubject, type Plans } from './plans.js';
import type { Limiter, RateDecision } from './policy.js';

/** The pipeline's view: decide for a verified identity, or for an anonymous client address. */
export interface RateLimiting {
  forIdentity(identity: Identity): Promise<RateDecision>;
  forAnonymous(clientIp: string): Promise<RateDecision>;
}

/** Limits per account (`sub`) with bans per key (`jti`); anonymous requests per client IP. */
export function createRateLimiting(limiter: Limiter, plans: Plans): RateLimiting {
  return {
    forIdentity: (identity) => limiter.check({ subject: identity.subject, keyId: identity.keyId, policy: plans.forIdentity(identity) }),
    forAnonymous: (clientIp) => limiter.check({ subject: anonymousSubject(clientIp), keyId: undefined, policy: plans.anonymous() }),
  };
}
