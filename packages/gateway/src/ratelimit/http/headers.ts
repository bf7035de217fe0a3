import type { RateDecision, WindowReading } from '../decision.js';
import { isMonth } from '../policy.js';

const seconds = (ms: number) => Math.ceil(ms / 1000);

/** A refusal's `Retry-After`: whole seconds, at least 1; `undefined` when waiting would not help. */
export function retryAfterSeconds(decision: RateDecision): number | undefined {
  if (decision.allowed || decision.retryAt === undefined) return undefined;
  return Math.max(1, seconds(decision.retryAt - decision.now));
}

/** A window's name in the headers: `minute`, `month`; a layer's as `createPet.minute`. */
export const itemName = (window: WindowReading): string => (window.layer === undefined ? window.name : `${window.layer}.${window.name}`);

/**
 * The windows a refusal found exhausted, by their names in the headers (problem details'
 * `violated-policies`): those with nothing left, and the one that refused (a request costing
 * more than what is left refuses with some left).
 */
export function exhaustedWindows(decision: RateDecision): string[] {
  return decision.windows.filter((window) => window.remaining === 0 || window === decision.binding).map(itemName);
}

/**
 * The rate-limit headers of a decision, for every response:
 * - `X-RateLimit-Limit/Remaining/Reset` (Reset in Unix seconds) for the window closest to refusing;
 * - `RateLimit-Policy` and `RateLimit` (IETF httpapi draft, RFC 9651 lists) for every window;
 * - on a refusal, `Retry-After` in whole seconds ≥ 1, with `X-RateLimit-Reset` ≥ now + Retry-After;
 *   a request the limit can never admit gets no Retry-After at all (waiting would not help);
 * - for a banned key, `RateLimit` says r=0 for every window until the ban ends, as the X- fields do.
 * Both draft fields follow draft-ietf-httpapi-ratelimit-headers-11 (`headers.test.ts` checks them).
 */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  const { now, windows } = decision;
  // draft-ietf-httpapi-ratelimit-headers-11: both fields are non-empty Lists; without a window, neither.
  if (windows.length === 0) return {};
  const refusedUntil = !decision.allowed && decision.retryAt !== undefined ? decision.retryAt : undefined;
  let closest = windows[0];
  for (const window of windows) if (closest === undefined || window.remaining < closest.remaining) closest = window;
  const item = (w: RateDecision['windows'][number]): string => {
    // A banned key has no quota until the ban ends, whatever its windows hold (draft: r is the
    // available quota, t the time within which no more than r may be used).
    const remaining = decision.banned ? 0 : w.remaining;
    const until = decision.banned && refusedUntil !== undefined ? refusedUntil : w.resetAt;
    return `"${itemName(w)}";r=${remaining};t=${Math.max(0, seconds(until - now))}`;
  };
  // A monthly quota says its unit (the draft's `qu`): a request spends its operation's cost of it.
  const policy = (w: RateDecision['windows'][number]): string => `"${itemName(w)}";q=${w.limit};w=${seconds(w.windowMs)}${isMonth(w) ? ';qu="request"' : ''}`;
  const headers: Record<string, string> = {
    'ratelimit-policy': windows.map(policy).join(', '),
    ratelimit: windows.map(item).join(', '),
  };
  if (closest !== undefined) {
    headers['x-ratelimit-limit'] = String(closest.limit);
    headers['x-ratelimit-remaining'] = String(closest.remaining);
    headers['x-ratelimit-reset'] = String(seconds(Math.max(closest.resetAt, now)));
  }
  const retryAfter = retryAfterSeconds(decision);
  if (refusedUntil !== undefined && retryAfter !== undefined) {
    headers['retry-after'] = String(retryAfter);
    headers['x-ratelimit-reset'] = String(Math.max(seconds(refusedUntil), Math.floor(now / 1000) + retryAfter));
    if (decision.banned) headers['x-ratelimit-remaining'] = '0';
  }
  return headers;
}
