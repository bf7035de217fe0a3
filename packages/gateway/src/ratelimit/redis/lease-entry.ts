import type { WindowReading } from '../decision.js';
import type { LimitRequest } from '../limiter.js';
import type { Policy } from '../policy.js';
import type { ScriptRequest } from './redis-call.js';

/** What one process's lease table (`leases.ts`) is given. */
export interface LeaseOptions {
  /** Units one lease holds at most; the script grants fewer near a limit (`lease-lua.ts`). */
  readonly maxUnits: number;
  /** The process's clock, in ms: monotonic (`performance.now`), or the tests' clock. */
  readonly now: () => number;
  /**
   * The deny-list's local copy, for a request that checks its key's revocation: false when the
   * copy is complete, listening for revocations, and does not hold the key. Anything else (the
   * key revoked, or the copy unsure) leaves the request to Redis.
   */
  readonly revoked?: (keyId: string) => boolean;
}

/** Units of an account charged in Redis to this process ahead of its requests. */
export interface Lease {
  readonly policy: Policy;
  readonly units: number;
  left: number;
  /** Redis's clock when the script charged it: the bucket its units are in, and its record's name. */
  readonly chargedAt: number;
  /** This process's clock when the call that granted it was sent. */
  readonly sentAt: number;
  /** Usable while this process's clock is before it: the lease's end, never later on Redis's clock. */
  readonly until: number;
  /** Per window of the policy: what was left for the other instances, the lease counted as used. */
  readonly others: readonly WindowReading[];
}

/** What the table knows of one account. */
export interface Entry {
  lease: Lease | undefined;
  /** Units the next lease asks for. */
  want: number;
  /** A request of the account is in a call that asks for a lease. */
  asking: boolean;
  /** This process's clock at the account's last request, and at the one before. */
  lastAt: number;
  previousAt: number;
}

/** An account asks for a lease only when its request comes within this long of its previous one. */
export const BUSY_MS = 1000;
/** A lease unused for this long is given back before it ends. */
export const IDLE_MS = 1000;
/** An account with no request for this long is forgotten: its next request asks for no lease. */
export const FORGET_MS = 10_000;
/** Accounts remembered at most; past it no new account asks for a lease until some are forgotten. */
export const MAX_ENTRIES = 100_000;

/**
 * Of each window's limit, the most one lease holds is this fraction, and none under it (the
 * script's `LEASE_OF_LIMIT`, `lease-lua.ts`): 1,000 a minute is 17 a second, an account that
 * cannot be busy enough to need leases, whose bursts stay exact.
 */
export const LEASE_OF_LIMIT = 1024;

/**
 * A request a lease may answer: not a peek, not in shadow, without layers, with no strikes
 * pending, on a plan every window of which is large enough for a lease (an account under it asks
 * for none: the script would grant none, and a request asking for one leaves its common path),
 * and, if it checks revocation, with the deny-list's copy sure of its key.
 */
export function isOrdinary(request: LimitRequest, revoked: LeaseOptions['revoked']): boolean {
  return (
    request.peek !== true &&
    leasable(request.policy) &&
    request.shadow !== true &&
    (request.layers === undefined || request.layers.length === 0) &&
    (request.pendingStrikes ?? 0) === 0 &&
    (request.checkRevoked !== true || request.keyId === undefined || revoked?.(request.keyId) === false)
  );
}

/** Whether every window of `policy` is large enough for a lease (`LEASE_OF_LIMIT`). */
export const leasable = (policy: Policy): boolean => policy.windows.every((window) => window.limit >= LEASE_OF_LIMIT);

/** Ends the entry's lease: what it used sets the next one's size. */
export function dropLease(entry: Entry, lease: Lease, maxUnits: number): void {
  entry.lease = undefined;
  entry.want = Math.min(maxUnits, Math.max(1, 2 * (lease.units - lease.left)));
}

/**
 * A request that only gives `lease` back, in its own policy (whose windows say where its units
 * are): sent even when all its units were used, so that its record in Redis goes.
 */
export const giveBackOnly = (subject: string, lease: Lease): ScriptRequest => ({
  subject,
  keyId: undefined,
  policy: lease.policy,
  lease: { want: 0, back: lease.left, backAt: lease.chargedAt, only: true },
});

/** The lease's windows as a request sees them, `extra` units of it still this process's own. */
export const leaseReadings = (lease: Lease, extra: number): WindowReading[] =>
  lease.others.map((window) => ({ ...window, remaining: window.remaining + extra }));
