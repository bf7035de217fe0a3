import type { Calendar } from '../calendar.js';
import { decision, revokedDecision, type RateDecision, type WindowReading } from '../decision.js';
import { isMonth, type Layer } from '../policy.js';
import type { Grant, ScriptRequest } from './redis-call.js';

/*
 * A script call's reply (`redis-script.ts` says what it holds), read into each request's decision:
 * the other half of `redis-call.ts`.
 */

const OUTCOMES = { 0: 'limited', 1: 'allowed', 2: 'banned', 4: 'allowed', 5: 'limited', 6: 'allowed' } as const;
/** Admitted, answered in the reply's short form: its windows follow the outcome at once (no retryAt, no refusing window). */
const ADMITTED_SHORT = 6;
/** Refused only for units leased and not given back: the limit would admit it (no strike counted). */
const HELD = 5;
/** The key's own layer, among a request's layers (the others are `Layer`s). */
const OWN: unique symbol = Symbol('own');
const ONLY_OWN = [OWN] as const;

/** The reply's values: little-endian doubles, one after another (`reply-lua.ts`). */
export function valuesOf(reply: Buffer): number[] {
  if (reply.length % 8 !== 0) throw new Error(`a rate-limit reply of ${reply.length} bytes is not a whole number of values`);
  const values: number[] = new Array(reply.length / 8);
  for (let i = 0; i < values.length; i++) values[i] = reply.readDoubleLE(i * 8);
  return values;
}

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
