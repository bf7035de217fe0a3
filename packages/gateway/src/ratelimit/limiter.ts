import type { RateDecision } from './decision.js';
import type { Layer, Policy } from './policy.js';

/** What an engine is asked for one request: whose counters, on what terms, what it spends. */
export interface LimitRequest {
  /** Whose counters: the account (`sub`, see `accountSubject`), `ip:<address>` for anonymous requests, `usage:<jti>`. */
  readonly subject: string;
  /** The API key (`jti`), whose bans these are; anonymous requests have none. */
  readonly keyId: string | undefined;
  readonly policy: Policy;
  /**
   * Units the request spends of every window (the plan's `cost` of its operation; 1 unless the
   * plan names one). A request that does not fit whole is refused, and charges nothing.
   */
  readonly cost?: number;
  /**
   * The key's plan is computed and charged but never enforced: where it would refuse, the
   * request is admitted (`shadow` in the decision), its plan not charged, no strike counted.
   */
  readonly shadow?: boolean;
  /**
   * Further layers, decided with the key's in one atomic step: the request passes only if every
   * layer admits it, and then every layer is charged; a refusal charges none. They have no bans.
   */
  readonly layers?: readonly Layer[];
  /** Refusals answered locally since the last shared decision: they count as strikes too. */
  readonly pendingStrikes?: number;
  /**
   * Also ask whether `keyId` is revoked, in the same round trip (the Redis deny-list): the shared
   * limiter then does the authenticator's revocation check.
   */
  readonly checkRevoked?: boolean;
  /**
   * Read only (`GET /v1/usage`): the decision this request would get now, computed by the same
   * code, with nothing charged, no strike counted and nothing written. `allowed` says whether it
   * would be admitted; `remaining` is what is left before it.
   */
  readonly peek?: boolean;
}

/**
 * What every engine implements (`memory/`, `redis/`), and what stands in front of one (`front/`):
 * a request's decision as a value (`decision.ts`); only infrastructure failures throw.
 */
export interface Limiter {
  check(request: LimitRequest): Promise<RateDecision>;
  /**
   * A first round trip to where decisions are made, before the gateway says it is ready (Redis:
   * the script run once, Redis's clock learnt). Absent: nothing to warm (in process).
   */
  warm?(): Promise<void>;
}

/**
 * This request alone could not be decided: its engine answered, and could not take it (a policy
 * it cannot read, say). The other requests of its batch were decided; this one gets the failure
 * policy, and it says nothing of the engine's health (no circuit breaker counts it).
 */
export class CheckFaultError extends Error {
  constructor(cause: unknown) {
    super('this request could not be decided', { cause });
    this.name = 'CheckFaultError';
  }
}
