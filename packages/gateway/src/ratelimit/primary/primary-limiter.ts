import { hash } from 'node:crypto';
import type { RateDecision } from '../decision.js';
import { CheckFaultError, type Limiter, type LimitRequest } from '../limiter.js';
import type { Policy } from '../policy.js';
import { RateLimitUnavailableError } from '../front/index.js';
import { MESSAGE, type Port } from '../../ipc/index.js';
import { CHECK, decisionOf, FAILED, FAULT, PEEK, SEED, SHADOW, UNKNOWN, type CheckBatch, type DecidedBatch, type Engine, type WireCheck } from './protocol.js';

/** The limiter of a worker whose counters are the primary's; `seed` as `MemoryLimiter.seed`. */
export interface PrimaryLimiter extends Limiter {
  seed(request: LimitRequest, used: ReadonlyMap<string, number>): void;
}

type Entry =
  | { readonly request: LimitRequest; readonly resolve: (decided: RateDecision) => void; readonly reject: (error: unknown) => void }
  | { readonly request: LimitRequest; readonly used: ReadonlyMap<string, number> };

/** Policy ids this worker believes the primary knows, at most (past it, definitions are sent again). */
const MAX_KNOWN = 10_000;

/**
 * A limiter that asks the primary's `engine` (see `hostLimits`) over `port`, so that every
 * worker of the gateway counts on the same counters. Checks are sent in batches: one batch is in
 * flight at a time, and the checks asked meanwhile wait for its answer and leave together, so the
 * batch grows with the load. A check fails with `RateLimitUnavailableError` when the channel is
 * closed (the primary is gone, or this worker was told to disconnect), and, with `deadlineMs`, when
 * the primary has not answered within it (stopped, or starved of CPU): the failure policy in front
 * (`createSharedLimiter`) answers then. It never waits for a primary that cannot answer.
 */
export function createPrimaryLimiter(port: Port, engine: Engine, options: { readonly deadlineMs?: number } = {}): PrimaryLimiter {
  let queue: Entry[] = [];
  let inFlight: Entry[] | undefined;
  let scheduled = false;
  let closed = false;
  /** The batch in flight went unanswered past the deadline: until the primary answers it, checks fail at once. */
  let stalled = false;
  let timer: NodeJS.Timeout | undefined;
  const ids = new WeakMap<Policy, string>();
  const known = new Set<string>();

  /** The policy's id, its definition added to `definitions` when the primary may not know it. */
  function idOf(policy: Policy, definitions: string[]): string {
    let id = ids.get(policy);
    if (id === undefined) ids.set(policy, (id = hash('sha1', JSON.stringify(policy), 'base64url').slice(0, 16)));
    if (!known.has(id)) {
      if (known.size >= MAX_KNOWN) known.clear();
      known.add(id);
      definitions.push(id, JSON.stringify(policy));
    }
    return id;
  }

  function wireOf(entry: Entry, definitions: string[]): WireCheck {
    const { request } = entry;
    if ('used' in entry) {
      const wire: (string | number | null)[] = [SEED, request.subject, null, idOf(request.policy, definitions), 0, 0];
      for (const [name, used] of entry.used) wire.push(name, used);
      return wire;
    }
    const flags = (request.shadow === true ? SHADOW : 0) | (request.peek === true ? PEEK : 0);
    const wire: (string | number | null)[] = [CHECK, request.subject, request.keyId ?? null, idOf(request.policy, definitions), request.cost ?? 1, flags];
    for (const layer of request.layers ?? []) wire.push(layer.subject, idOf(layer.policy, definitions));
    return wire;
  }

  function fail(entries: readonly Entry[], cause: unknown): void {
    const error = new RateLimitUnavailableError(cause);
    for (const entry of entries) if ('reject' in entry) entry.reject(error);
  }

  function flush(): void {
    scheduled = false;
    if (inFlight !== undefined || queue.length === 0) return;
    const entries = queue;
    queue = [];
    const definitions: string[] = [];
    const checks = entries.map((entry) => wireOf(entry, definitions));
    inFlight = entries;
    const deadline = options.deadlineMs === undefined ? null : Date.now() + options.deadlineMs;
    const batch: CheckBatch = { type: MESSAGE.limitsCheck, engine, policies: definitions, checks, deadline };
    const failed = (error: Error | null) => {
      if (error === null || inFlight !== entries) return;
      inFlight = undefined;
      fail(entries, error);
    };
    if (!port.send(batch, failed)) return failed(new Error('the channel to the gateway primary is closed'));
    if (options.deadlineMs !== undefined) timer = setTimeout(() => stall(entries), options.deadlineMs);
  }

  /**
   * The primary did not answer `entries` within the deadline (it is stopped, or starved): they and
   * the checks queued behind them fail, as does every check until it answers them (its answers
   * then come too late for anyone: a check it charges was answered by the failure policy).
   */
  function stall(entries: readonly Entry[]): void {
    if (inFlight !== entries) return;
    stalled = true;
    const waiting = [...entries, ...queue];
    queue = [];
    fail(waiting, new Error(`the gateway primary did not answer within ${options.deadlineMs} ms`));
  }

  port.on<DecidedBatch>(MESSAGE.limitsDecided, (message) => {
    if (message.engine !== engine || inFlight === undefined) return;
    const entries = inFlight;
    inFlight = undefined;
    clearTimeout(timer);
    if (stalled) {
      stalled = false;
      return flush();
    }
    message.answers.forEach((answer, i) => {
      const entry = entries[i] as Entry;
      if (!('resolve' in entry)) return;
      if (answer[0] === FAILED) return entry.reject(new RateLimitUnavailableError(new Error('the gateway primary could not decide')));
      if (answer[0] === FAULT) return entry.reject(new CheckFaultError(new Error('the gateway primary could not decide this request')));
      if (answer[0] !== UNKNOWN) {
        // An answer this worker cannot read fails its own request, not the rest of the batch.
        let decided: RateDecision;
        try {
          decided = decisionOf(entry.request, answer);
        } catch (error) {
          return entry.reject(new CheckFaultError(error));
        }
        return entry.resolve(decided);
      }
      // The primary forgot these policies (its table is bounded): sent again with their definitions.
      for (let j = 1; j < answer.length; j++) known.delete(answer[j] as string);
      queue.push(entry);
    });
    flush();
  });
  port.onClose(() => {
    closed = true;
    clearTimeout(timer);
    const entries = [...(inFlight ?? []), ...queue];
    inFlight = undefined;
    queue = [];
    fail(entries, new Error('the channel to the gateway primary is closed'));
  });

  /**
   * Queued for the next batch. With nothing in flight, the batch leaves once this turn of the
   * event loop has read what its sockets had (`setImmediate`): the requests that arrived together
   * share one message (9 checks a batch on average at 25 connections, against 6 when sent at the
   * end of each request's own task).
   */
  function enqueue(entry: Entry): void {
    queue.push(entry);
    if (inFlight === undefined && !scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  }

  return {
    check(request) {
      if (closed || !port.connected()) return Promise.reject(new RateLimitUnavailableError(new Error('the channel to the gateway primary is closed')));
      if (stalled) return Promise.reject(new RateLimitUnavailableError(new Error('the gateway primary has not answered yet')));
      return new Promise<RateDecision>((resolve, reject) => enqueue({ request, resolve, reject }));
    },
    seed(request, used) {
      if (!closed && !stalled && port.connected()) enqueue({ request, used });
    },
  };
}
