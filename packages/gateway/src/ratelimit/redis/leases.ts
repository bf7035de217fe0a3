import { decision, type RateDecision } from '../decision.js';
import type { LimitRequest } from '../limiter.js';
import {
  BUSY_MS,
  dropLease,
  FORGET_MS,
  giveBackOnly,
  IDLE_MS,
  isOrdinary,
  leasable,
  leaseReadings as readings,
  MAX_ENTRIES,
  type Entry,
  type Lease,
  type LeaseOptions,
} from './lease-entry.js';
import type { Grant, LeaseTerms, ScriptRequest } from './redis-call.js';

export type { LeaseOptions } from './lease-entry.js';

export interface LeaseTable {
  /** The request's decision from its account's lease, without Redis; `undefined` when it must go to Redis. */
  take(request: LimitRequest): RateDecision | undefined;
  /**
   * The requests of one call, each with what it does with leases: the first of an account (not a
   * peek) gives back its lease, the last asks for a new one. `sentAt`: now, as the call leaves.
   */
  terms(requests: readonly ScriptRequest[]): ScriptRequest[];
  /**
   * A call's decisions, as the requests see them: a granted lease recorded, its units added back
   * to what the granting request and a peek before the give-back have left (they are this
   * process's to use).
   */
  settle(requests: readonly ScriptRequest[], decisions: RateDecision[], grants: readonly (Grant | undefined)[], sentAt: number): RateDecision[];
  /** Requests of `terms` that got no decision (the call failed, or the key was found revoked first): none waits for a lease any more. */
  abandon(requests: readonly ScriptRequest[]): void;
  /**
   * Leases to give back now: ended, unused for a while, or of a policy that changed. Each is a
   * request that only gives back, in its lease's own policy (whose windows say where its units are).
   */
  due(): ScriptRequest[];
  /**
   * Another instance was refused for units leased and not given back (`lease-recall.ts`): the
   * account's lease, if this process holds one, ends now; the request that gives it back.
   */
  recall(subject: string): ScriptRequest | undefined;
}

/**
 * The leases of one process (`lease-lua.ts` says why they never let an account over its limit).
 * A request is answered from its account's lease when the lease is of the same policy, has not
 * ended, holds its cost, and the request is an ordinary one: not a peek, not in shadow, without
 * layers, with no strikes pending, and, if it checks revocation, with the deny-list's copy sure
 * of its key. An account asks for a lease only while it is busy (a request within the last
 * second): one lease of 1 unit at first, then twice what the last one used, up to `maxUnits`.
 */
export function createLeaseTable(options: LeaseOptions): LeaseTable {
  const entries = new Map<string, Entry>();
  /** Leases dropped for a changed policy, to give back with the next call. */
  let pending: ScriptRequest[] = [];
  const { now } = options;

  const ordinary = (request: LimitRequest) => isOrdinary(request, options.revoked);
  const drop = (entry: Entry, lease: Lease) => dropLease(entry, lease, options.maxUnits);

  return {
    take(request) {
      const entry = entries.get(request.subject);
      if (entry === undefined) return undefined;
      const at = now();
      entry.previousAt = entry.lastAt;
      entry.lastAt = at;
      const lease = entry.lease;
      const cost = request.cost ?? 1;
      if (lease === undefined || lease.policy !== request.policy || at >= lease.until || lease.left < cost || !ordinary(request)) return undefined;
      lease.left -= cost;
      return decision('allowed', 'redis', {
        policy: lease.policy,
        windows: readings(lease, lease.left),
        retryAt: undefined,
        // Redis's clock, read as the call ran, plus what this process's clock says since it was sent.
        now: lease.chargedAt + (at - lease.sentAt),
        binding: undefined,
      });
    },

    terms(requests) {
      const at = now();
      // Made when a request first needs them: with many accounts on plans too small for leases, none does.
      let last: Map<string, number> | undefined;
      let givenBack: Set<string> | undefined;
      return requests.map((request, i) => {
        if (request.lease?.only === true) return request;
        let entry = entries.get(request.subject);
        if (entry === undefined) {
          // An account on a plan too small for a lease has none to ask for or give back: no entry.
          if (entries.size >= MAX_ENTRIES || !leasable(request.policy)) return request;
          entry = { lease: undefined, want: 1, asking: false, lastAt: at, previousAt: -Infinity };
          entries.set(request.subject, entry);
        }
        if (last === undefined) {
          last = new Map<string, number>();
          for (let j = 0; j < requests.length; j++) last.set((requests[j] as ScriptRequest).subject, j);
        }
        givenBack ??= new Set<string>();
        let back = 0;
        let backAt = 0;
        const lease = entry.lease;
        if (lease !== undefined && request.peek !== true && !givenBack.has(request.subject)) {
          givenBack.add(request.subject);
          // Given back where the request is decided, so that it finds the account as if the lease never was.
          if (lease.policy === request.policy) {
            back = lease.left;
            backAt = lease.chargedAt;
          } else {
            pending.push(giveBackOnly(request.subject, lease));
          }
          drop(entry, lease);
        }
        // Only an account's last request of the call asks: the others are decided before the lease is charged.
        const busy = entry.lastAt - entry.previousAt < BUSY_MS;
        const want = busy && last.get(request.subject) === i && !entry.asking && options.maxUnits > 0 && ordinary(request) ? entry.want : 0;
        if (want > 0) entry.asking = true;
        if (backAt === 0 && want === 0) return request;
        const terms: LeaseTerms = { want, back, backAt };
        return { ...request, lease: terms };
      });
    },

    settle(requests, decisions, grants, sentAt) {
      return decisions.map((decided, i) => {
        const request = requests[i] as ScriptRequest;
        const entry = entries.get(request.subject);
        if (entry === undefined || request.lease?.only === true) return decided;
        // A peek decided while a lease was out: the lease's units are this process's.
        if (request.peek === true) {
          const held = entry.lease;
          return held === undefined
            ? decided
            : { ...decided, windows: decided.windows.map((w) => (w.layer === undefined ? { ...w, remaining: w.remaining + held.left } : w)) };
        }
        if ((request.lease?.want ?? 0) > 0) entry.asking = false;
        const grant = grants[i];
        if (grant === undefined) {
          // Asked and granted nothing (near a limit, a ban or strikes): the next asks for 1.
          if ((request.lease?.want ?? 0) > 0) entry.want = 1;
          return decided;
        }
        const lease: Lease = {
          policy: request.policy,
          units: grant.units,
          left: grant.units,
          chargedAt: decided.now,
          sentAt,
          until: sentAt + (grant.endsAt - decided.now),
          others: decided.windows,
        };
        entry.lease = lease;
        return { ...decided, windows: readings(lease, lease.left) };
      });
    },

    abandon(requests) {
      for (const request of requests) {
        const entry = (request.lease?.want ?? 0) > 0 ? entries.get(request.subject) : undefined;
        if (entry !== undefined) entry.asking = false;
      }
    },

    due() {
      const at = now();
      const back = pending;
      pending = [];
      for (const [subject, entry] of entries) {
        const lease = entry.lease;
        if (lease !== undefined && (at >= lease.until || at - entry.lastAt >= IDLE_MS)) {
          back.push(giveBackOnly(subject, lease));
          drop(entry, lease);
        }
        if (entry.lease === undefined && !entry.asking && at - entry.lastAt >= FORGET_MS) entries.delete(subject);
      }
      return back;
    },

    recall(subject) {
      const entry = entries.get(subject);
      const lease = entry?.lease;
      if (entry === undefined || lease === undefined) return undefined;
      drop(entry, lease);
      return giveBackOnly(subject, lease);
    },
  };
}
