import type { PlansVersion } from '../events/index.js';
import type { RateDecision } from './decision.js';
import { accountKey, anonymousKey, limitSubject, usageKey, type KeyHolder, type LimitKey } from './limit-key.js';
import type { Limiter } from './limiter.js';
import { minuteAndDay, type Layer, type Policy } from './policy.js';

/** What limits a key's request: its account's policy, the units it spends, its layers, shadow or not. */
export interface KeyTerms {
  /** The account's policy, named after its plan: its sliding windows, its month, its bans. */
  readonly policy: Policy;
  /** Units the operation spends of every window (the plan's `cost`; 1 when it names none). */
  readonly cost: number;
  /** The plan is computed and charged, never enforced (`shadow`, `SHADOW_PLANS`, or the account's switch). */
  readonly shadow: boolean;
  /** The operation's ceiling, shared by every caller, when the file has one. */
  readonly layers: readonly Layer[];
}

/**
 * What the limits ask of the plans in force (`plans/`'s `createPlans` is them): the terms of a
 * key, the ceilings, the anonymous policy, and whether a change is being read.
 */
export interface PlanTerms {
  /** While a changed large file is being read, what settles once it applies; `undefined` otherwise. */
  reloading(): Promise<unknown> | undefined;
  version(): PlansVersion;
  forKey(holder: KeyHolder, operationId: string | undefined): KeyTerms;
  /** True when the plans in force have a plan of that name. */
  has(plan: string): boolean;
  ceilings(): readonly Layer[];
  costs(holder: KeyHolder): Readonly<Record<string, number>>;
  anonymous(): Policy;
}

/** The pipeline's view: decide for a verified identity, or for an anonymous client address. */
export interface RateLimiting {
  /**
   * True when `forIdentity` also checks the key against the Redis deny-list, in the same round
   * trip (a revoked key's decision says `revoked`): the authenticator then leaves Redis alone.
   */
  readonly checksRevocation: boolean;
  /** True when the plans in force have the plan a key names: a key naming none is refused (401). */
  knowsPlan(plan: string): boolean;
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
export function createRateLimiting(limiter: Limiter, plans: PlanTerms, options: { readonly checksRevocation?: boolean } = {}): RateLimiting {
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
    knowsPlan: (plan) => plans.has(plan),
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
