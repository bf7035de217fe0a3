import type { Identity } from '../auth/index.js';
import type { RateDecision, WindowReading } from '../ratelimit/index.js';

interface UsageWindow {
  readonly limit: number;
  readonly remaining: number;
  readonly resetAt: number;
}

/** The body of `GET /v1/usage` (the `Usage` schema of the effective document). */
export interface UsageBody {
  readonly plan: string;
  /** The plan's windows, the monthly quota (`month`) included, in units. */
  readonly windows: Record<string, UsageWindow>;
  /** Each operation's ceiling, shared by every caller: its windows. Absent without ceilings. */
  readonly operations?: Record<string, Record<string, UsageWindow>>;
  /** The units an operation spends, where the plan sets one (every other costs 1). Absent without costs. */
  readonly costs?: Readonly<Record<string, number>>;
  /** Present, and true, when the plan is computed but not enforced for this account. */
  readonly shadow?: true;
  readonly ban: { readonly until: number } | null;
  readonly keyExpiresAt: number | null;
}

/** What the plans say of the key beyond a decision: its plan's name and costs, shadow or not. */
export interface UsageTerms {
  readonly plan: string;
  readonly costs: Readonly<Record<string, number>>;
  readonly shadow: boolean;
}

const epochSeconds = (ms: number) => Math.ceil(ms / 1000);

/**
 * What `GET /v1/usage` tells the caller, from a decision that charged nothing (a peek): per window
 * the limit, what is left and when it admits again (Unix seconds, as `X-RateLimit-Reset`), for the
 * plan and for each operation's ceiling; the costs; whether the plan is in shadow; the key's ban
 * while there is one; when the key expires. Without limits (RATE_LIMITS=off), no windows.
 */
export function usageBody(identity: Identity, decision: RateDecision | undefined, terms?: UsageTerms): UsageBody {
  const at = decision?.now ?? 0;
  const windowOf = (window: WindowReading): UsageWindow => ({
    limit: window.limit,
    remaining: window.remaining,
    resetAt: epochSeconds(Math.max(window.resetAt, at)),
  });
  const operations: Record<string, Record<string, UsageWindow>> = {};
  for (const window of decision?.windows ?? []) {
    if (window.layer !== undefined) (operations[window.layer] ??= {})[window.name] = windowOf(window);
  }
  const costs = terms?.costs ?? {};
  // What a plan without ceilings, costs or shadow does not have is left out, not written empty.
  return {
    plan: terms?.plan ?? identity.plan,
    windows: Object.fromEntries((decision?.windows ?? []).filter((window) => window.layer === undefined).map((window) => [window.name, windowOf(window)])),
    ...(Object.keys(operations).length === 0 ? {} : { operations }),
    ...(Object.keys(costs).length === 0 ? {} : { costs }),
    ...(terms?.shadow === true ? { shadow: true as const } : {}),
    ban: decision?.kind === 'banned' && decision.retryAt !== undefined ? { until: epochSeconds(decision.retryAt) } : null,
    keyExpiresAt: identity.expiresAt === undefined ? null : Math.floor(identity.expiresAt / 1000),
  };
}
