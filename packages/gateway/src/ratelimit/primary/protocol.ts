import type { RateDecision, WindowReading } from '../decision.js';
import type { LimitRequest } from '../limiter.js';
import { isMonth, type Layer, type Policy } from '../policy.js';
import { decision } from '../decision.js';
import { MESSAGE, type Message } from '../../ipc/index.js';

/**
 * The limits' messages between a gateway's workers and its primary, on the channel the
 * supervisor and the admin API use too (their types are in `ipc/messages.ts`). Only arrays,
 * strings, numbers and `null` travel.
 *
 * A worker sends its checks in batches (`CheckBatch`); the primary answers each batch with one
 * `DecidedBatch`, its answers in the order of the checks. A policy travels by its id (a hash of its
 * definition); its definition goes with the first check that names it, and again whenever the
 * primary answers that it does not know the id (`UNKNOWN`).
 */
/**
 * Which of the primary's limiters decides: `process`, the gateway's limits when there is no Redis;
 * `local`, the share of the plan admitted while Redis is away (`RATE_LIMIT_ON_REDIS_FAILURE=local`).
 */
export type Engine = 'process' | 'local';

export interface CheckBatch extends Message {
  readonly type: typeof MESSAGE.limitsCheck;
  readonly engine: Engine;
  /** Definitions of policies the primary may not know yet: id, JSON, id, JSON… */
  readonly policies: readonly string[];
  /**
   * When the worker stops waiting (ms since the epoch, the machine's clock, which both read):
   * a batch the primary reads later decides and charges nothing, since the worker has answered
   * its requests by then. `null`: no deadline.
   */
  readonly deadline: number | null;
  readonly checks: readonly WireCheck[];
}

export interface DecidedBatch extends Message {
  readonly type: typeof MESSAGE.limitsDecided;
  readonly engine: Engine;
  readonly answers: readonly WireAnswer[];
}

/** Operations of a batch entry. */
export const CHECK = 0;
export const SEED = 1;

/** Flags of a check. */
export const SHADOW = 1;
export const PEEK = 2;

/**
 * `[CHECK, subject, keyId | null, policyId, cost, flags, layerSubject, layerPolicyId, …]`, or
 * `[SEED, subject, null, policyId, 0, 0, windowName, used, …]` (see `MemoryLimiter.seed`).
 */
export type WireCheck = readonly (string | number | null)[];

/**
 * Answer kinds: the first element of an answer. `FAILED`: the primary could not decide the batch
 * (read past its deadline); `FAULT`: the primary's limiter threw on this check alone (a policy it
 * cannot read, say), the others of the batch decided.
 */
export const UNKNOWN = 0;
export const FAILED = -1;
export const FAULT = -2;
const KINDS = [undefined, 'allowed', 'limited', 'banned'] as const;
export const KIND_CODES = { allowed: 1, limited: 2, banned: 3 } as const;

/**
 * `[kind, retryAt | null, now, bindingIndex | -1, shadow 0/1, limit, windowMs, remaining, resetAt, …]`
 * per window, in the decision's order (the key's own, then each layer's); `[UNKNOWN, policyId, …]`
 * for a check naming policies the primary does not know; `[FAILED]`, `[FAULT]`; `[]` for a seed. The windows' names and
 * layers, and the policy, are the request's: the worker puts them back.
 */
export type WireAnswer = readonly (number | string | null)[];

/** A check as the primary's limiter reads it, from the wire. `undefined`: a policy is unknown (`missing` lists them). */
export function requestOf(check: WireCheck, policies: ReadonlyMap<string, Policy>, missing: string[]): LimitRequest | undefined {
  const policy = policies.get(check[3] as string);
  if (policy === undefined) missing.push(check[3] as string);
  const flags = check[5] as number;
  let layers: Layer[] | undefined;
  for (let i = 6; i < check.length; i += 2) {
    const layerPolicy = policies.get(check[i + 1] as string);
    if (layerPolicy === undefined) missing.push(check[i + 1] as string);
    else (layers ??= []).push({ subject: check[i] as string, policy: layerPolicy });
  }
  if (missing.length > 0) return undefined;
  return {
    subject: check[1] as string,
    keyId: (check[2] as string | null) ?? undefined,
    policy: policy as Policy,
    cost: check[4] as number,
    shadow: (flags & SHADOW) !== 0,
    peek: (flags & PEEK) !== 0,
    ...(layers === undefined ? {} : { layers }),
  };
}

/** A decision as it travels back: numbers only, nothing the worker already has. */
export function answerOf(decided: RateDecision): WireAnswer {
  const answer: (number | null)[] = [
    KIND_CODES[decided.kind as keyof typeof KIND_CODES],
    decided.retryAt ?? null,
    decided.now,
    decided.binding === undefined ? -1 : decided.windows.indexOf(decided.binding),
    decided.shadow === true ? 1 : 0,
  ];
  for (const window of decided.windows) answer.push(window.limit, window.windowMs, window.remaining, window.resetAt);
  return answer;
}

/** The decision an answer stands for, with the request's policy, window names and layers put back. */
export function decisionOf(request: LimitRequest, answer: WireAnswer): RateDecision {
  const windows: WindowReading[] = [];
  let at = 5;
  const read = (policy: Policy, layer: string | undefined) => {
    for (const window of policy.windows) {
      const reading: { -readonly [F in keyof WindowReading]: WindowReading[F] } = {
        name: window.name,
        limit: answer[at] as number,
        windowMs: answer[at + 1] as number,
        remaining: answer[at + 2] as number,
        resetAt: answer[at + 3] as number,
      };
      if (layer !== undefined) reading.layer = layer;
      // As the limiter in process marks it: the headers and the refusal's code read it.
      if (isMonth(window)) reading.kind = 'month';
      windows.push(reading);
      at += 4;
    }
  };
  read(request.policy, undefined);
  for (const layer of request.layers ?? []) read(layer.policy, layer.policy.name);
  const binding = answer[3] as number;
  return decision(KINDS[answer[0] as number] as 'allowed' | 'limited' | 'banned', 'process', {
    policy: request.policy,
    windows,
    retryAt: (answer[1] as number | null) ?? undefined,
    now: answer[2] as number,
    binding: binding === -1 ? undefined : windows[binding],
    shadow: answer[4] === 1,
  });
}

/** A seed as the primary's limiter reads it: the request and what another limiter had counted. */
export function seedOf(check: WireCheck, policies: ReadonlyMap<string, Policy>): { request: LimitRequest; used: Map<string, number> } | undefined {
  const policy = policies.get(check[3] as string);
  if (policy === undefined) return undefined;
  const used = new Map<string, number>();
  for (let i = 6; i < check.length; i += 2) used.set(check[i] as string, check[i + 1] as number);
  return { request: { subject: check[1] as string, keyId: undefined, policy }, used };
}
