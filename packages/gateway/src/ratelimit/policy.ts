/**
 * One window of a policy: at most `limit` units in any sliding interval of `windowMs` (`minute`,
 * `day`), or in a calendar month of the limiter's time zone (`month`: `windowMs` and `buckets` 0).
 */
export interface WindowPolicy {
  readonly name: 'minute' | 'day' | 'month';
  readonly limit: number;
  readonly windowMs: number;
  /** Sub-buckets per window: a bucket is windowMs / buckets wide (1 s of a minute, 24 min of a day). */
  readonly buckets: number;
}

/** A calendar-month quota of `limit` units. */
export const monthWindow = (limit: number): WindowPolicy => ({ name: 'month', limit, windowMs: 0, buckets: 0 });

/** Strikes: rejected requests a key may send while limited before it is banned. */
export interface BanPolicy {
  readonly strikes: number;
  readonly strikeWindowMs: number;
  readonly banMs: number;
}

export interface Policy {
  /** For headers and logs: `pro`, `enterprise`, `anonymous`. */
  readonly name: string;
  readonly windows: readonly WindowPolicy[];
  readonly ban: BanPolicy | undefined;
  /**
   * The policy of requests without a valid key or operation, per client address: in process, its
   * counters are the first forgotten when the table of addresses is full
   * (`RATE_LIMIT_MAX_ADDRESSES`), and its refusal is `anonymous_rate_limited`.
   */
  readonly anonymous?: boolean;
}

export const BUCKETS_PER_WINDOW = 60;
export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** A minute-and-day policy with the standard bucket counts. */
export function minuteAndDay(name: string, perMinute: number, perDay: number, ban?: BanPolicy): Policy {
  return {
    name,
    windows: [
      { name: 'minute', limit: perMinute, windowMs: MINUTE_MS, buckets: BUCKETS_PER_WINDOW },
      { name: 'day', limit: perDay, windowMs: DAY_MS, buckets: BUCKETS_PER_WINDOW },
    ],
    ban,
  };
}

/**
 * What a limit decided: `limited` refuses until `retryAt` (never, when it is `undefined`: the
 * request exceeds what the policy can ever admit); `banned` refuses the key until `retryAt`;
 * `revoked` means the key was found on the deny-list in the limit's own round trip (nothing
 * read or charged).
 */
export type DecisionKind = 'allowed' | 'limited' | 'banned' | 'revoked';
/**
 * Who decided: `redis` (shared), `process` (the in-process limiter, no Redis configured), or a
 * failure policy while Redis is away: `local` (a share of the plan in process) or `open` (admit).
 */
export type DecisionSource = 'redis' | 'process' | 'local' | 'open';

/** One window of a decision, after the request: what is left and when the oldest counted request leaves. */
export interface WindowReading {
  readonly name: string;
  /** The layer the window belongs to: absent for the key's own (its plan), else the layer's name (an operation). */
  readonly layer?: string | undefined;
  readonly limit: number;
  readonly windowMs: number;
  readonly remaining: number;
  readonly resetAt: number;
}

/** What the limiter decided, as a value: only infrastructure failures throw. Made by `decision()`. */
export interface RateDecision {
  readonly kind: DecisionKind;
  readonly source: DecisionSource;
  /** `kind === 'allowed'`, `'banned'` and `'revoked'`, for the readers that ask yes or no. */
  readonly allowed: boolean;
  readonly banned: boolean;
  readonly revoked: boolean;
  readonly policy: Policy;
  /** Every window of every layer: the key's own first, then each further layer's. */
  readonly windows: readonly WindowReading[];
  /**
   * The window that refused (of the refusing windows, the one that frees last): it names the
   * layer and the kind of the refusal. For a request admitted in shadow, the one that would have.
   */
  readonly binding?: WindowReading | undefined;
  /** Admitted only because the key's plan is in shadow: enforced, the plan would have refused it. */
  readonly shadow?: boolean;
  /** When a refused request could be admitted (ms since the epoch); `undefined` if never. */
  readonly retryAt: number | undefined;
  /** The limiter's clock (Redis TIME, or the process's) at the decision, ms since the epoch. */
  readonly now: number;
}

/** The only maker of decisions, so that `kind` and its yes-or-no readings cannot disagree. */
export function decision(
  kind: DecisionKind,
  source: DecisionSource,
  fields: Pick<RateDecision, 'policy' | 'windows' | 'retryAt' | 'now' | 'binding' | 'shadow'>,
): RateDecision {
  // Every property written out, in one order: no spread, one shape for every decision.
  const made = {
    kind,
    source,
    allowed: kind === 'allowed',
    banned: kind === 'banned',
    revoked: kind === 'revoked',
    policy: fields.policy,
    windows: fields.windows,
    binding: fields.binding,
    retryAt: fields.retryAt,
    now: fields.now,
  };
  return fields.shadow === true ? { ...made, shadow: true } : made;
}

/** The same decision, answered by a failure policy while Redis is away (`local` or `open`). */
export function fromFallback(decided: RateDecision, source: 'local' | 'open'): RateDecision {
  if (source === 'local') return { ...decided, source };
  return decision('allowed', 'open', { policy: decided.policy, windows: decided.windows, retryAt: undefined, now: decided.now, binding: undefined });
}

/** True when Redis failed and a failure policy or the deny-list's copy answered. */
export const isDegraded = (d: RateDecision): boolean => d.source === 'local' || d.source === 'open';

/**
 * A remembered decision, answered again `at` (this process's clock) after it was made at
 * `cachedAt`: its times move by how long it was held, since they are on the limiter's clock.
 */
export function heldDecision(decided: RateDecision, cachedAt: number, at: number): RateDecision {
  return { ...decided, now: decided.now + (at - cachedAt) };
}

/** A request whose key is revoked: refused, nothing read or charged, its windows as if untouched. */
export function revokedDecision(policy: Policy, now: number, source: DecisionSource): RateDecision {
  const windows = policy.windows.map((window) => ({
    name: window.name,
    limit: window.limit,
    windowMs: window.windowMs,
    remaining: window.limit,
    resetAt: now,
  }));
  return decision('revoked', source, { policy, windows, retryAt: undefined, now });
}

/** A layer above the key's own: a ceiling shared by every caller of an operation, say. */
export interface Layer {
  /** Its counters' subject (`op:createPet`). */
  readonly subject: string;
  /** Its windows; its name is the layer's, in headers (`createPet.minute`) and in answers. */
  readonly policy: Policy;
}

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

export interface Limiter {
  check(request: LimitRequest): Promise<RateDecision>;
  /**
   * A first round trip to where decisions are made, before the gateway says it is ready (Redis:
   * the script run once, Redis's clock learnt). Absent: nothing to warm (in process).
   */
  warm?(): Promise<void>;
}
