import type { Identity } from '../../auth/index.js';
import type { Plans } from '../../plans/index.js';
import { accountKey, limitSubject, type Calendar, type Layer, type Limiter, type Policy, type RateDecision } from '../../ratelimit/index.js';
import type { KeyRecord } from '../ledger/index.js';

/**
 * What the admin API reads the limits with, where they are kept: the engine that decides
 * (Redis's script, or the limiter in process), the plans in force, the days of
 * `QUOTA_TIME_ZONE`, and how a ban is lifted there. Every reading is a peek, the very code that
 * decides a request with nothing charged (as `GET /v1/usage` reads): never a second count.
 */
export interface LimitsReading {
  readonly limiter: Limiter;
  readonly plans: Pick<Plans, 'forKey' | 'ceilings' | 'costs'>;
  readonly calendar: Calendar;
  readonly now: () => number;
  /** `SHADOW_PLANS`, for the terms a candidate plans file gives. */
  readonly shadowPlans: ReadonlySet<string>;
  /** Lifts the ban of key `keyId` of the account whose limits are under `subject`; true when it was banned. */
  liftBan(subject: string, keyId: string): Promise<boolean>;
}

/** RFC 9651's largest integer, the largest limit a plan can hold: a window at it counts and never refuses. */
export const UNBOUNDED = 999_999_999_999_999;

const counting = new WeakMap<Policy, Policy>();

/**
 * `policy` with every limit at `UNBOUNDED`: a peek with it says exactly what each window counts
 * (the limit less what is left), more than the limit too (a limit lowered after it was used), and
 * a key's ban, whatever the plan's windows.
 */
export function countingPolicy(policy: Policy): Policy {
  let found = counting.get(policy);
  if (found === undefined) {
    found = { ...policy, windows: policy.windows.map((window) => ({ ...window, limit: UNBOUNDED })) };
    counting.set(policy, found);
  }
  return found;
}

/** The identity a key record stands for: what the key says, as the gateway read it when it verified it. */
export function identityOf(record: KeyRecord): Identity {
  return { subject: record.account, keyId: record.keyId, plan: record.plan, expiresAt: record.expiresAt, limits: record.limits };
}

/** The storage subject of `account`'s limits (`accountSubject`: escaped when it looks like another kind). */
export const subjectOf = (account: string): string => limitSubject(accountKey({ subject: account, keyId: '', plan: 'free' }));

/** A peek at `identity`'s account as its next request (cost 1) would find it: its plan's windows, `layers` above them. */
export function peekAs(reading: LimitsReading, identity: Identity, policy: Policy, shadow: boolean, layers: readonly Layer[]): Promise<RateDecision> {
  return reading.limiter.check({ subject: subjectOf(identity.subject), keyId: identity.keyId, policy, shadow, layers, peek: true });
}
