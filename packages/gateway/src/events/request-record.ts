/**
 * What one request was, as the request path learns it: the subject of every event about it. The
 * steps fill it in; subscribers read it (and key their own state by it). Never the key itself.
 */
export interface RequestRecord {
  /** The gateway the request came to: each subscribes for its own (tests run several in one process). */
  readonly source: object;
  readonly id: string;
  readonly method: string;
  /** The raw target, for the log line only (never a metric label: unbounded). */
  readonly url: string;
  /** `performance.now()` at arrival. */
  readonly startedAt: number;
  /** The operation's path template (`/v1/pets/{petId}`), or a fixed name for what is not one. */
  route: string;
  /** How the request ended (`proxied`, `unauthorized`, `rate_limited`, …). */
  outcome: string;
  /** The verified key's plan, `anonymous` when limited per address, absent when not limited. */
  plan?: string;
  /** The limit decision that applied, as `LimitDecisionKind`. */
  decision?: string;
  keyId?: string;
  subject?: string;
  authFailure?: string;
  degraded?: boolean;
  /** How long the upstream took to start answering, in ms. */
  upstreamMs?: number;
  /** The W3C trace id, when the request belongs to a trace (the client's, or the gateway's own). */
  traceId?: string | undefined;
}

/** The routes of what is not an operation: bounded, so they may be metric labels. */
export const UNMATCHED_ROUTE = 'unmatched';
