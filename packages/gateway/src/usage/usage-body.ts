import type { Identity } from '../auth/index.js';
import type { RateDecision } from '../ratelimit/index.js';

/** The body of `GET /v1/usage` (the `Usage` schema of the effective document). */
export interface UsageBody {
  readonly plan: string;
  readonly windows: Record<string, { readonly limit: number; readonly remaining: number; readonly resetAt: number }>;
  readonly ban: { readonly until: number } | null;
  readonly keyExpiresAt: number | null;
}

const epochSeconds = (ms: number) => Math.ceil(ms / 1000);

/**
 * What `GET /v1/usage` tells the caller, from a decision that charged nothing (a peek): per window
 * the limit, what is left and when it admits again (Unix seconds, as `X-RateLimit-Reset`); the
 * key's ban while there is one; when the key expires. Without limits (RATE_LIMITS=off), no windows.
 */
export function usageBody(identity: Identity, decision: RateDecision | undefined): UsageBody {
  return {
    plan: identity.plan,
    windows: Object.fromEntries(
      (decision?.windows ?? []).map((window) => [
        window.name,
        { limit: window.limit, remaining: window.remaining, resetAt: epochSeconds(Math.max(window.resetAt, decision?.now ?? 0)) },
      ]),
    ),
    ban: decision?.kind === 'banned' && decision.retryAt !== undefined ? { until: epochSeconds(decision.retryAt) } : null,
    keyExpiresAt: identity.expiresAt === undefined ? null : Math.floor(identity.expiresAt / 1000),
  };
}
