/**
 * How a window counts: `sliding`, over any interval of its `windowMs`; `month`, over a calendar
 * month of the limiter's time zone (`QUOTA_TIME_ZONE`), which ends for everyone at once.
 */
export type WindowKind = 'sliding' | 'month';

/** At most `limit` units in any sliding interval of `windowMs` (`minute`, `day`). */
export interface SlidingWindowPolicy {
  /** Set by every maker of windows here; a window written by hand without it is sliding too. */
  readonly kind?: 'sliding';
  readonly name: 'minute' | 'day';
  readonly limit: number;
  readonly windowMs: number;
  /** Sub-buckets per window: a bucket is windowMs / buckets wide (1 s of a minute, 24 min of a day). */
  readonly buckets: number;
}

/** At most `limit` units in a calendar month: a quota (made by `monthWindow`). */
export interface MonthWindowPolicy {
  readonly kind: 'month';
  readonly name: 'month';
  readonly limit: number;
  /** 0: a month's length is the calendar's (28 to 31 days, an hour more or less). */
  readonly windowMs: 0;
  /** 0: a month counts in one bucket, the month itself. */
  readonly buckets: 0;
}

/** One window of a policy. Whether it is a month is its `kind` (`isMonth`), never its name. */
export type WindowPolicy = SlidingWindowPolicy | MonthWindowPolicy;

/** True for a calendar month: a window of a policy, or a decision's reading of one. */
export const isMonth = (window: { readonly kind?: WindowKind | undefined }): boolean => window.kind === 'month';

export const BUCKETS_PER_WINDOW = 60;
export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** A sliding minute of `limit` units, in buckets of 1 s. */
export const minuteWindow = (limit: number): SlidingWindowPolicy => ({
  kind: 'sliding',
  name: 'minute',
  limit,
  windowMs: MINUTE_MS,
  buckets: BUCKETS_PER_WINDOW,
});

/** A sliding day of `limit` units, in buckets of 24 min. */
export const dayWindow = (limit: number): SlidingWindowPolicy => ({ kind: 'sliding', name: 'day', limit, windowMs: DAY_MS, buckets: BUCKETS_PER_WINDOW });

/** A calendar-month quota of `limit` units. */
export const monthWindow = (limit: number): MonthWindowPolicy => ({ kind: 'month', name: 'month', limit, windowMs: 0, buckets: 0 });

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

/** A minute-and-day policy with the standard bucket counts. */
export function minuteAndDay(name: string, perMinute: number, perDay: number, ban?: BanPolicy): Policy {
  return { name, windows: [minuteWindow(perMinute), dayWindow(perDay)], ban };
}

/** A layer above the key's own: a ceiling shared by every caller of an operation, say. */
export interface Layer {
  /** Its counters' subject (`op:createPet`). */
  readonly subject: string;
  /** Its windows; its name is the layer's, in headers (`createPet.minute`) and in answers. */
  readonly policy: Policy;
}
