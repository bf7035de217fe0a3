import { isMonth, type Policy } from './policy.js';

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
  /**
   * `month` when the window is a calendar month (`isMonth`), whose `windowMs` is this month's
   * length; absent for a sliding window, so its reading keeps the shape it always had.
   */
  readonly kind?: 'month' | undefined;
  /** The layer the window belongs to: absent for the key's own (its plan), else the layer's name (an operation). */
  readonly layer?: string | undefined;
  readonly limit: number;
  readonly windowMs: number;
  readonly remaining: number;
  readonly resetAt: number;
  /**
   * A peek's month on Redis, when some of its units were charged to leases of gateway processes
   * that have not said what they used (given up, or not given back yet): counted, so never more
   * than the limit is admitted, but not known to be used (billing shows them apart).
   */
  readonly unaccounted?: number | undefined;
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
  const windows = policy.windows.map((window): WindowReading => {
    const reading = { name: window.name, limit: window.limit, windowMs: window.windowMs, remaining: window.limit, resetAt: now };
    return isMonth(window) ? { ...reading, kind: 'month' } : reading;
  });
  return decision('revoked', source, { policy, windows, retryAt: undefined, now });
}
