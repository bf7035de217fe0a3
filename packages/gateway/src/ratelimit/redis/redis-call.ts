import type { Calendar } from '../calendar.js';
import { decision, revokedDecision, type RateDecision, type WindowReading } from '../decision.js';
import type { LimitRequest } from '../limiter.js';
import { isMonth, type Layer, type Policy } from '../policy.js';
import { encoded } from './policy-args.js';

/**
 * What a request does with leases in its call (`leases.ts`): the units it asks for, and an earlier
 * lease it gives back: its units unused (0 when all were used: its record in Redis goes all the
 * same) and when it was charged (Redis's clock; 0: none). `only`: it gives back and is not decided
 * (a lease that ended, its account idle, or asked for by another instance).
 */
export interface LeaseTerms {
  readonly want: number;
  readonly back: number;
  readonly backAt: number;
  readonly only?: boolean;
}

/** A request as the Redis engine sends it: with what it does with leases, if anything. */
export type ScriptRequest = LimitRequest & { readonly lease?: LeaseTerms | undefined };

/** A lease a call granted: its units, and when it ends (ms, Redis's clock). */
export interface Grant {
  readonly units: number;
  readonly endsAt: number;
}

/** What a script call sends: its keys and its ARGV, as `redis-script.ts` describes them. */
export interface ScriptCall {
  readonly keys: string[];
  readonly args: (string | number)[];
}

/**
 * The call deciding `requests` (all of one shard). `header`: ARGV 1 to 5 (clock, count, deny-list,
 * then the deadline; the policies' count is filled here). Month starts are sent when a policy
 * has a month, picked around `at`, this process's view of Redis's clock.
 */
export function scriptCall(
  requests: readonly ScriptRequest[],
  options: {
    readonly keyOf: (subject: string) => string;
    readonly denyList: string | undefined;
    readonly clock: string | number;
    readonly deadline: string | number;
    /** This process, as the holder of the leases the call asks for and gives back. */
    readonly holder: string;
  },
  calendar: Calendar,
  at: number,
): ScriptCall {
  const keys: string[] = options.denyList === undefined ? [] : [options.denyList];
  const keyIndex = new Map<string, number>();
  // Policies once per call: the requests of a batch share a few (one per plan, say).
  const policyIndex = new Map<string, number>();
  const policyArgs: (string | number)[] = [];
  const requestArgs: (string | number)[] = [];
  let months = false;
  const keyOf = (subject: string) => {
    const key = options.keyOf(subject);
    let index = keyIndex.get(key);
    if (index === undefined) {
      keys.push(key);
      index = keys.length; // Lua counts from 1
      keyIndex.set(key, index);
    }
    return index;
  };
  // The policy of the request before: most requests of a call share it.
  let lastPolicy: Policy | undefined;
  let lastNumber = 0;
  const policyOf = (policy: Policy) => {
    if (policy === lastPolicy) return lastNumber;
    const { fields, signature } = encoded(policy);
    let number = policyIndex.get(signature);
    if (number === undefined) {
      number = policyIndex.size + 1;
      policyIndex.set(signature, number);
      for (const field of fields) policyArgs.push(field);
      months ||= policy.windows.some(isMonth);
    }
    lastPolicy = policy;
    lastNumber = number;
    return number;
  };
  for (const request of requests) {
    const layers = request.layers ?? [];
    const lease = request.lease;
    const checks = options.denyList !== undefined && request.checkRevoked === true ? '1' : '0';
    if (layers.length === 0 && lease === undefined && request.peek !== true && request.shadow !== true && (request.pendingStrikes ?? 0) === 0) {
      // The short form (redis-script.ts): most requests ask only to be decided and charged.
      requestArgs.push(-keyOf(request.subject), request.keyId ?? '', checks, policyOf(request.policy), request.cost ?? 1);
      continue;
    }
    requestArgs.push(
      keyOf(request.subject),
      request.keyId ?? '',
      checks,
      policyOf(request.policy),
      request.pendingStrikes ?? 0,
      lease?.only === true ? '2' : request.peek === true ? '1' : '0',
      request.cost ?? 1,
      request.shadow === true ? '1' : '0',
      layers.length,
    );
    for (const layer of layers) requestArgs.push(keyOf(layer.subject), policyOf(layer.policy));
    if (lease === undefined) requestArgs.push(0, 0, 0);
    else requestArgs.push(lease.want, lease.back, lease.backAt);
  }
  const starts = months ? calendar.boundaries(at) : [];
  const args = [
    options.clock,
    requests.length,
    options.denyList === undefined ? '0' : '1',
    policyIndex.size,
    options.deadline,
    options.holder,
    starts.length,
    ...starts,
  ];
  return { keys, args: [...args, ...policyArgs, ...requestArgs] };
}

const OUTCOMES = { 0: 'limited', 1: 'allowed', 2: 'banned', 4: 'allowed', 5: 'limited', 6: 'allowed' } as const;
/** Admitted, answered in the reply's short form: its windows follow the outcome at once (no retryAt, no refusing window). */
const ADMITTED_SHORT = 6;
/** Refused only for units leased and not given back: the limit would admit it (no strike counted). */
const HELD = 5;
/** The key's own layer, among a request's layers (the others are `Layer`s). */
const OWN: unique symbol = Symbol('own');
const ONLY_OWN = [OWN] as const;

/**
 * Each request's decision from the script's reply (after `now`, its first value), the lease
 * granted to each request that asked for one, and which refusals were only for units leased and
 * not given back (`held`). A peek's month reading says the units no lease holder accounted for.
 */
export function decisionsOf(
  requests: readonly ScriptRequest[],
  reply: readonly number[],
  calendar: Calendar,
): { decisions: RateDecision[]; grants: (Grant | undefined)[]; held: boolean[] } {
  const now = reply[0] as number;
  const decisions: RateDecision[] = [];
  const grants: (Grant | undefined)[] = [];
  const held: boolean[] = [];
  let at = 1;
  for (const request of requests) {
    const layers: readonly (typeof OWN | Layer)[] = request.layers === undefined || request.layers.length === 0 ? ONLY_OWN : [OWN, ...request.layers];
    let count = 0;
    for (const layer of layers) count += (layer === OWN ? request.policy : layer.policy).windows.length;
    const outcome = reply[at] as keyof typeof OUTCOMES | 3;
    held.push(outcome === HELD);
    const unaccounted = request.peek === true ? (reply[at + 3 + count * 2] as number) : 0;
    if (outcome === 3) {
      decisions.push(revokedDecision(request.policy, now, 'redis'));
    } else {
      const head = outcome === ADMITTED_SHORT ? 1 : 3;
      const retry = head === 1 ? 0 : (reply[at + 1] as number);
      const binding = head === 1 ? 0 : (reply[at + 2] as number);
      const windows: WindowReading[] = [];
      let k = at + head;
      for (const layer of layers) {
        const name = layer === OWN ? undefined : layer.policy.name;
        for (const window of (layer === OWN ? request.policy : layer.policy).windows) {
          const resetAt = reply[k + 1] as number;
          const month = isMonth(window);
          const reading: { -readonly [F in keyof WindowReading]: WindowReading[F] } = {
            name: window.name,
            limit: window.limit,
            windowMs: month ? resetAt - calendar.monthOf(resetAt - 1).start : window.windowMs,
            remaining: Math.max(0, window.limit - (reply[k] as number)),
            resetAt,
          };
          if (month) reading.kind = 'month';
          if (month && name === undefined && unaccounted > 0) reading.unaccounted = unaccounted;
          if (name !== undefined) reading.layer = name;
          windows.push(reading);
          k += 2;
        }
      }
      decisions.push(
        decision(OUTCOMES[outcome], 'redis', {
          policy: request.policy,
          windows,
          retryAt: retry === -1 || retry === 0 ? undefined : retry,
          now,
          binding: binding === 0 ? undefined : windows[binding - 1],
          shadow: outcome === 4,
        }),
      );
    }
    at += (outcome === ADMITTED_SHORT ? 1 : 3) + count * 2;
    // A peek's units not accounted for, read with its windows above.
    if (request.peek === true) at += 1;
    if ((request.lease?.want ?? 0) > 0) {
      const units = reply[at] as number;
      grants.push(units > 0 ? { units, endsAt: reply[at + 1] as number } : undefined);
      at += 2;
    } else {
      grants.push(undefined);
    }
  }
  return { decisions, grants, held };
}
