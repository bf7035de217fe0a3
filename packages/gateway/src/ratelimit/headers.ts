import type { RateDecision } from './policy.js';

const seconds = (ms: number) => Math.ceil(ms / 1000);

/**
 * The rate-limit headers of a decision, for every response:
 * - `X-RateLimit-Limit/Remaining/Reset` (Reset in Unix seconds) for the window closest to refusing;
 * - `RateLimit-Policy` and `RateLimit` (IETF httpapi draft, RFC 9651 lists) for every window;
 * - on a refusal, `Retry-After` in whole seconds ≥ 1, with `X-RateLimit-Reset` ≥ now + Retry-After;
 *   a request the limit can never admit gets no Retry-After at all (waiting would not help).
 */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  const { now, windows } = decision;
  let closest = windows[0];
  for (const window of windows) if (closest === undefined || window.remaining < closest.remaining) closest = window;
  const headers: Record<string, string> = {
    'ratelimit-policy': windows.map((w) => `"${w.name}";q=${w.limit};w=${seconds(w.windowMs)}`).join(', '),
    ratelimit: windows.map((w) => `"${w.name}";r=${w.remaining};t=${Math.max(0, seconds(w.resetAt - now))}`).join(', '),
  };
  if (closest !== undefined) {
    headers['x-ratelimit-limit'] = String(closest.limit);
    headers['x-ratelimit-remaining'] = String(closest.remaining);
    headers['x-ratelimit-reset'] = String(seconds(Math.max(closest.resetAt, now)));
  }
  if (!decision.allowed && decision.retryAt !== undefined) {
    const retryAfter = Math.max(1, seconds(decision.retryAt - now));
    headers['retry-after'] = String(retryAfter);
    headers['x-ratelimit-reset'] = String(Math.max(seconds(decision.retryAt), Math.floor(now / 1000) + retryAfter));
    if (decision.banned) headers['x-ratelimit-remaining'] = '0';
  }
  return headers;
}
