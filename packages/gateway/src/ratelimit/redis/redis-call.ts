import type { Calendar } from '../calendar.js';
import type { LimitRequest } from '../limiter.js';
import { isMonth, type Policy } from '../policy.js';
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
  /** The header and policies, then the requests packed in one string (`packedRequests`). */
  readonly args: (string | number | Buffer)[];
  /** The requests' fields before they are packed, in the order and forms `packedRequests` reads. */
  readonly fields: readonly (string | number)[];
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
  return { keys, args: [...args, ...policyArgs, packedRequests(requestArgs, requests.length)], fields: requestArgs };
}

/*
 * A request's bytes (little-endian, as `struct` formats in the script read them). Both forms start
 * alike ('<i4BI4dH'): the index in KEYS of its account's key (int32; below 0 for the short form),
 * 1 to refuse it when the deny-list holds it (uint8), its policy's number (uint32), its cost
 * (double), its key id (uint16 length, then its UTF-8 bytes). The full form goes on ('<dBBI4'):
 * its strikes (double), mode (uint8), shadow (uint8), its number of further layers (uint32), then
 * per layer its key's index and its policy ('<i4I4'), then its lease terms ('<ddd'): units asked
 * for, units given back and when they were charged. Indexes and counts take 4 bytes: a peek may
 * carry thousands of ceilings, each a layer with its own key and policy. Out of range (a key id
 * over 65,535 bytes, say), Buffer's writes throw: the call is not sent.
 */
const PREFIX_BYTES = 19;
const TAIL_BYTES = 14;
const LAYER_BYTES = 8;
const LEASE_BYTES = 24;

/** `count` requests' fields (short and full forms, as `scriptCall` lists them) in one string. */
export function packedRequests(fields: readonly (string | number)[], count: number): Buffer {
  // At most 3 bytes of UTF-8 for each UTF-16 unit of a key id.
  let most = 0;
  for (let i = 0, at = 0; i < count; i++) {
    const key = fields[at] as number;
    most += PREFIX_BYTES + 3 * (fields[at + 1] as string).length;
    if (key < 0) {
      at += 5;
    } else {
      const extra = fields[at + 8] as number;
      most += TAIL_BYTES + LAYER_BYTES * extra + LEASE_BYTES;
      at += 12 + 2 * extra;
    }
  }
  const out = Buffer.allocUnsafe(most);
  let p = 0;
  for (let i = 0, at = 0; i < count; i++) {
    const key = fields[at] as number;
    const short = key < 0;
    p = out.writeInt32LE(key, p);
    p = out.writeUInt8(fields[at + 2] === '1' ? 1 : 0, p);
    p = out.writeUInt32LE(fields[at + 3] as number, p);
    p = out.writeDoubleLE(Number(fields[at + (short ? 4 : 6)]), p);
    const length = out.write(fields[at + 1] as string, p + 2, 'utf8');
    p = out.writeUInt16LE(length, p) + length;
    if (short) {
      at += 5;
      continue;
    }
    const extra = fields[at + 8] as number;
    p = out.writeDoubleLE(Number(fields[at + 4]), p);
    p = out.writeUInt8(Number(fields[at + 5]), p);
    p = out.writeUInt8(fields[at + 7] === '1' ? 1 : 0, p);
    p = out.writeUInt32LE(extra, p);
    for (let l = 0; l < extra; l++) {
      p = out.writeInt32LE(fields[at + 9 + 2 * l] as number, p);
      p = out.writeUInt32LE(fields[at + 10 + 2 * l] as number, p);
    }
    const lf = at + 9 + 2 * extra;
    for (let k = 0; k < 3; k++) p = out.writeDoubleLE(Number(fields[lf + k]), p);
    at += 12 + 2 * extra;
  }
  return out.subarray(0, p);
}
