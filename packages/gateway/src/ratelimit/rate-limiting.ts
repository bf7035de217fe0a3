import type { Identity } from '../auth/index.js';
import { anonymousSubject, type Plans } from './plans.js';
import type { Limiter, RateDecision } from './policy.js';

/** The pipeline's view: decide for a verified identity, or for an anonymous client address. */
export interface RateLimiting {
  /**
   * True when `forIdentity` also checks the key against the Redis deny-list, in the same round
   * trip (a revoked key's decision says `revoked`): the authenticator then leaves Redis alone.
   */
  readonly checksRevocation: boolean;
  forIdentity(identity: Identity): Promise<RateDecision>;
  forAnonymous(clientIp: string): Promise<RateDecision>;
}

/**
 * Limits per account (`sub`) with bans per key (`jti`); anonymous requests per client IP (IPv6
 * per /64). What refusals mean for key verification is the key guard's (`pipeline/steps/key-guard.ts`).
 */
export function createRateLimiting(limiter: Limiter, plans: Plans, options: { readonly checksRevocation?: boolean } = {}): RateLimiting {
  const checkRevoked = options.checksRevocation === true;
  return {
    checksRevocation: checkRevoked,
    forIdentity: (identity) => limiter.check({ subject: identity.subject, keyId: identity.keyId, policy: plans.forIdentity(identity), checkRevoked }),
    forAnonymous: (clientIp) => limiter.check({ subject: anonymousSubject(clientIp), keyId: undefined, policy: plans.anonymous() }),
  };
}
