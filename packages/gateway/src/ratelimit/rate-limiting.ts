import type { PlansVersion } from '../events/index.js';
import type { Plans } from '../plans/index.js';
import type { RateDecision } from './decision.js';
import { accountKey, anonymousKey, limitSubject, usageKey, type KeyHolder, type LimitKey } from './limit-key.js';
import type { Limiter } from './limiter.js';
import { minuteAndDay, type Policy } from './policy.js';

/** The pipeline's view: decide for a verified identity, or for an anonymous client address. */
export interface RateLimiting {
  /**
   * True when `forIdentity` also checks the key against the Redis deny-list, in the same round
   * trip (a revoked key's decision says `revoked`): the authenticator then leaves Redis alone.
   */
  readonly checksRevocation: boolean;
  /** Charges the request of `operationId` to the key's account, at its plan's cost of that operation. */
  forIdentity(identity: KeyHolder, operationId?: string): Promise<RateDecision>;
  /**
   * What `forIdentity` would decide now for a request costing 1, charging nothing (`GET
   * /v1/usage`): the same code on the same state, read only, with every operation's ceiling as a
   * layer. Checks revocation as `forIdentity` does.
   */
  peekIdentity(identity: KeyHolder): Promise<RateDecision>;
  /** The key's terms as `GET /v1/usage` tells them: its plan's name, its costs, shadow or not. */
  termsOf(identity: KeyHolder): { readonly plan: string; readonly costs: Readonly<Record<string, number>>; readonly shadow: boolean };
  /** The usage endpoint's own small limit, per key (`USAGE_POLICY`), so it cannot be used to flood. */
  forUsage(identity: KeyHolder): Promise<RateDecision>;
  forAnonymous(clientIp: string): Promise<RateDecision>;
  /** Which content of `PLANS_FILE` is in force (`gateway_plans_info`). */
  plansVersion(): PlansVersion;
  /** See `Limiter.warm`: absent when there is nothing to warm. */
  readonly warm?: () => Promise<void>;
}

/** `GET /v1/usage` per key: it is cheap but not free (a read of Redis), and polling it a second is plenty. */
export const USAGE_POLICY: Policy = minuteAndDay('usage', 60, 2_000);

/** What a limiter stores a key's counters under: its subject, and the key whose bans apply. */
function storageOf(key: LimitKey): { subject: string; keyId: string | undefined } {
  return { subject: limitSubject(key), keyId: key.scope === 'account' ? key.keyId : undefined };
}

/**
 * Limits per account (`sub`) with bans per key (`jti`); anonymous requests per client IP (IPv6
 * per /64). What refusals mean for key verification is the key guard's (`pipeline/steps/key-guard.ts`).
 */
export function createRateLimiting(limiter: Limiter, plans: Plans, options: { readonly checksRevocation?: boolean } = {}): RateLimiting {
  const checkRevoked = options.checksRevocation === true;
  const warm = limiter.warm?.bind(limiter);
  // A request that finds a large changed plans file being read waits for it: the change applies
  // from the next request, as a small one does. (No closure unless it waits: the hot path.)
  const forIdentity = (identity: KeyHolder, operationId?: string): Promise<RateDecision> => {
    const reloading = plans.reloading();
    if (reloading !== undefined) return reloading.then(() => forIdentity(identity, operationId));
    const { policy, cost, shadow, layers } = plans.forKey(identity, operationId);
    return limiter.check({ ...storageOf(accountKey(identity)), policy, checkRevoked, cost, shadow, layers });
  };
  // Every layer: the key's plan and each operation's ceiling, as a request costing 1 would find them.
  const peekIdentity = (identity: KeyHolder): Promise<RateDecision> => {
    const reloading = plans.reloading();
    if (reloading !== undefined) return reloading.then(() => peekIdentity(identity));
    const { policy, shadow } = plans.forKey(identity, undefined);
    return limiter.check({ ...storageOf(accountKey(identity)), policy, checkRevoked, shadow, layers: plans.ceilings(), peek: true });
  };
  const forAnonymous = (clientIp: string): Promise<RateDecision> => {
    const reloading = plans.reloading();
    if (reloading !== undefined) return reloading.then(() => forAnonymous(clientIp));
    return limiter.check({ ...storageOf(anonymousKey(clientIp)), policy: plans.anonymous() });
  };
  return {
    ...(warm === undefined ? {} : { warm }),
    checksRevocation: checkRevoked,
    plansVersion: () => plans.version(),
    forIdentity,
    peekIdentity,
    termsOf(identity) {
      const { policy, shadow } = plans.forKey(identity, undefined);
      return { plan: policy.name, costs: plans.costs(identity), shadow };
    },
    // A subject of its own per key, and no key id: the usage limit neither reads nor makes bans.
    forUsage: (identity) => limiter.check({ ...storageOf(usageKey(identity)), policy: USAGE_POLICY }),
    forAnonymous,
  };
}
