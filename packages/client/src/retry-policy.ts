/** How a client retries, once its options are filled in. */
export interface RetrySettings {
  /** Attempts per call, the first included. */
  readonly maxAttempts: number;
  /** The longest single wait: a `Retry-After` above it fails at once; backoff is capped by it. */
  readonly maxDelayMs: number;
  /** The first backoff ceiling; it doubles with each attempt. */
  readonly baseDelayMs: number;
}

export const DEFAULT_RETRY: RetrySettings = { maxAttempts: 4, maxDelayMs: 120_000, baseDelayMs: 100 };

/** What came of one attempt. */
export type AttemptOutcome =
  { readonly kind: 'answer'; readonly status: number; readonly code: string; readonly retryAfterSeconds: number | undefined } | { readonly kind: 'network' };

export type Verdict = { readonly retry: true; readonly delayMs: number } | { readonly retry: false };

const STOP: Verdict = { retry: false };

/**
 * Whether to try again after attempt number `attempt` (1 for the first), and after how long:
 * - 429 `key_banned`: never (retrying only makes a ban worse); `quota_exhausted`: never (the
 *   monthly quota renews when the month ends);
 * - any other 429: after exactly `Retry-After`; without one (the plan can never admit the request)
 *   or with one longer than `maxDelayMs`, never;
 * - 502, 503, 504 and network errors, for a call that is safe to repeat (`replayable`: GET, HEAD,
 *   or POST with an Idempotency-Key): after a random time between 0 and
 *   min(maxDelayMs, baseDelayMs × 2^(attempt−1)) ("full jitter"), and never sooner than a 503's
 *   `Retry-After`;
 * - anything else: never.
 * A 429 is retried whatever the method: the gateway refused it before it reached the service.
 */
export function nextStep(attempt: number, outcome: AttemptOutcome, replayable: boolean, settings: RetrySettings, random: () => number): Verdict {
  if (attempt >= settings.maxAttempts) return STOP;
  if (outcome.kind === 'answer' && outcome.status === 429) {
    if (outcome.code === 'key_banned' || outcome.code === 'quota_exhausted' || outcome.retryAfterSeconds === undefined) return STOP;
    const delayMs = outcome.retryAfterSeconds * 1000;
    return delayMs > settings.maxDelayMs ? STOP : { retry: true, delayMs };
  }
  const transient = outcome.kind === 'network' || outcome.status === 502 || outcome.status === 503 || outcome.status === 504;
  if (!transient || !replayable) return STOP;
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (attempt - 1));
  const jittered = Math.floor(random() * ceiling);
  const floorMs = outcome.kind === 'answer' && outcome.status === 503 && outcome.retryAfterSeconds !== undefined ? outcome.retryAfterSeconds * 1000 : 0;
  if (floorMs > settings.maxDelayMs) return STOP;
  return { retry: true, delayMs: Math.max(jittered, floorMs) };
}
