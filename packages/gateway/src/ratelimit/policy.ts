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

/** A layer above the key's own: a ceiling shared by every caller of an operation, say. */
export interface Layer {
  /** Its counters' subject (`op:createPet`). */
  readonly subject: string;
  /** Its windows; its name is the layer's, in headers (`createPet.minute`) and in answers. */
  readonly policy: Policy;
}
