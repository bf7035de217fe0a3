import { publishRedisDegraded } from '../../events/index.js';
import type { Calendar } from '../calendar.js';
import { fromFallback, heldDecision, revokedDecision, type RateDecision } from '../decision.js';
import { CheckFaultError, type Limiter, type LimitRequest } from '../limiter.js';
import { createMemoryLimiter, type MemoryLimiter } from '../memory/index.js';
import { createCircuitBreaker } from './circuit-breaker.js';
import { createRedisViews, mergeUsed, type RedisViews, type UsedBySubject } from './redis-views.js';

/** What to do while Redis fails (down, slower than the command budget, failing over). */
export type FailurePolicy = 'open' | 'closed' | 'local';

/** Redis failed and the policy is `closed`: the request gets 503 rate_limit_unavailable. */
export class RateLimitUnavailableError extends Error {
  constructor(cause: unknown) {
    super('rate limits cannot be checked', { cause });
    this.name = 'RateLimitUnavailableError';
  }
}

export interface SharedLimiterOptions {
  readonly shared: Limiter;
  /** Where the shared counters are, as a degradation is reported: Redis (the default), or the gateway's primary. */
  readonly store?: 'redis' | 'primary';
  readonly onFailure: FailurePolicy;
  /** With `local`: each instance admits this share of the plan while Redis is away. */
  readonly localShare: number;
  /** A refused key is answered locally for at most this long (never past its Retry-After). */
  readonly denyCacheMs: number;
  readonly now?: () => number;
  /** The months of monthly quotas, for the local fallback (the Redis limiter has its own). */
  readonly calendar?: Calendar;
  /** Anonymous addresses the local fallback keeps counters of at most (`RATE_LIMIT_MAX_ADDRESSES`). */
  readonly maxAddresses?: number;
  /**
   * The deny-list's local copy, for requests that ask their key's revocation in the limit's round
   * trip (`checkRevoked`): it answers when Redis does not, and learns each key Redis finds revoked.
   */
  readonly revocations?: { fromCopy(keyId: string): boolean; remember(keyId: string): void } | undefined;
  /**
   * The `local` failure policy's limiter, made at `localShare` (one in process by default). A
   * gateway's workers pass the primary's (`createPrimaryLimiter(…, 'local')`): one share for the
   * whole gateway, not one per worker.
   */
  readonly local?: Pick<MemoryLimiter, 'check' | 'seed'>;
  /** What Redis said last of each account, as this process saw it (made here when not given). */
  readonly views?: RedisViews;
  /**
   * With a `local` limiter shared by several workers: what Redis had counted for `subjects` as
   * the other workers saw it (`undefined` when they did not answer in time). The first fallback
   * of an account in an outage seeds with the most any worker saw, before anything is admitted.
   */
  readonly othersViews?: (subjects: readonly string[]) => Promise<UsedBySubject | undefined>;
}

/** Accounts whose combined seed is remembered in an outage; past it the map starts again (they are asked again). */
const MAX_COMBINED = 100_000;

/** A request's own fault, as a value (see `check`); any other error thrown again. */
const ownFault = (error: unknown): CheckFaultError => {
  if (error instanceof CheckFaultError) return error;
  throw error;
};

interface Denial {
  readonly decision: RateDecision;
  /** On this process's clock. */
  readonly cachedAt: number;
  readonly until: number;
  /** The units of the request refused. */
  readonly cost: number;
  strikes: number;
}

/**
 * The Redis limiter with what production needs around it:
 * - hot keys: a refused or banned key is answered from a local cache without a round trip (a
 *   refusal can never over-admit), its refusals carried to Redis as strikes on the next call;
 * - failures: `open` admits (headers from a local view, flagged degraded), `closed` refuses with
 *   503, `local` limits in process at a share of the plan, first counting its share of what Redis
 *   had admitted when it last answered for the account (so the instances together admit at most
 *   what Redis had left, not a share of the plan on top of it). No request waits past the command
 *   budget (no offline queue); after `FAILURES_TO_OPEN` failures in a row none waits at all for
 *   `OPEN_MS` (a circuit breaker), then one request probes Redis, and Redis decides again as soon
 *   as it answers.
 */
/** Failures in a row (each a command budget spent waiting) before Redis is left alone a while. */
export const FAILURES_TO_OPEN = 3;
/** How long Redis is left alone before one request probes it again. */
export const OPEN_MS = 500;

export function createSharedLimiter(options: SharedLimiterOptions): Limiter {
  const now = options.now ?? Date.now;
  const local =
    options.local ??
    createMemoryLimiter({
      now,
      share: options.onFailure === 'local' ? options.localShare : 1,
      ...(options.calendar === undefined ? {} : { calendar: options.calendar }),
      ...(options.maxAddresses === undefined ? {} : { maxAddresses: options.maxAddresses }),
    });
  const denials = new Map<string, Denial>();
  const guarded = createCircuitBreaker({ failuresToOpen: FAILURES_TO_OPEN, openMs: OPEN_MS, now });
  const seeding = options.onFailure === 'local';
  const views = options.views ?? createRedisViews(options.maxAddresses === undefined ? {} : { maxAddresses: options.maxAddresses });
  const { othersViews } = options;
  /** Outages seen, and whether Redis is failing now: the other workers are asked once an account an outage. */
  let outage = 0;
  let failing = false;
  const combined = new Map<string, { readonly outage: number; readonly done: Promise<UsedBySubject | undefined> }>();

  /**
   * The local fallback first counts its share of what Redis had admitted in windows still open,
   * for every layer: as this process saw it, and, once an account an outage, as the other
   * workers saw it (their last answers may be later than this one's).
   */
  async function seedLocal(request: LimitRequest, at: number): Promise<void> {
    const layers = [request, ...(request.layers ?? [])];
    const subjects = layers.map((layer) => layer.subject);
    const used = views.usedAt(subjects, at);
    if (othersViews !== undefined) {
      const key = subjects.join('\u0000');
      let asked = combined.get(key);
      if (asked === undefined || asked.outage !== outage) {
        if (combined.size >= MAX_COMBINED) combined.clear();
        combined.set(key, (asked = { outage, done: othersViews(subjects).catch(() => undefined) }));
      }
      const others = await asked.done;
      if (others !== undefined) mergeUsed(used, others);
    }
    for (const layer of layers) {
      const windows = used[layer.subject];
      if (windows !== undefined) local.seed({ subject: layer.subject, keyId: undefined, policy: layer.policy }, new Map(Object.entries(windows)));
    }
  }

  const warm = options.shared.warm?.bind(options.shared);
  return {
    ...(warm === undefined ? {} : { warm }),
    async check(request: LimitRequest): Promise<RateDecision> {
      // A refusal is held per key and per set of layers: an operation's ceiling says nothing of another's.
      let key = `${request.subject}\u0000${request.keyId ?? ''}`;
      for (const layer of request.layers ?? []) key += `\u0000${layer.subject}`;
      const at = now();
      // A peek is never answered from, nor added to, the cache of refusals: it would count a strike there.
      const denial = request.peek === true ? undefined : denials.get(key);
      let pendingStrikes = 0;
      if (denial !== undefined) {
        // Redis counted one strike when it refused; this refusal would be the ban-making one: ask Redis.
        const ban = request.policy.ban;
        const banDue = !denial.decision.banned && ban !== undefined && 1 + denial.strikes + 1 >= ban.strikes;
        // A refusal at one cost says nothing of a cheaper request (a ban refuses any): ask Redis.
        const covered = denial.decision.banned || (request.cost ?? 1) >= denial.cost;
        if (denial.until > at && !banDue && covered) {
          denial.strikes += 1;
          return heldDecision(denial.decision, denial.cachedAt, at);
        }
        denials.delete(key);
        pendingStrikes = denial.decision.banned ? 0 : denial.strikes;
      }
      let decision: RateDecision;
      try {
        // This request's own fault (`CheckFaultError`) is an answer of a healthy engine: the
        // breaker does not count it, and the request alone gets the policy.
        const answered = await guarded(() => options.shared.check({ ...request, pendingStrikes }).catch(ownFault));
        if (answered instanceof CheckFaultError) throw answered;
        decision = answered;
      } catch (error) {
        publishRedisDegraded({ part: options.store === 'primary' ? 'rate limits in the primary' : 'rate limits', policy: options.onFailure, error });
        // The revocation first, as the authenticator would: an unknown deny-list fails closed
        // (RevocationsUnavailableError) whatever the limit policy.
        if (request.checkRevoked === true && request.keyId !== undefined && options.revocations?.fromCopy(request.keyId) === true) {
          return revokedDecision(request.policy, at, 'local');
        }
        if (options.onFailure === 'closed') throw new RateLimitUnavailableError(error);
        failing = true;
        if (seeding) await seedLocal(request, at);
        const view = await local.check(request);
        return fromFallback(view, options.onFailure);
      }
      if (decision.revoked) {
        if (request.keyId !== undefined) options.revocations?.remember(request.keyId);
        return decision;
      }
      if (failing) {
        failing = false;
        outage += 1;
      }
      if (seeding) views.remember(request, decision, at);
      if (!decision.allowed && decision.retryAt !== undefined && request.peek !== true) {
        // Held at most denyCacheMs, so a raised limit or a lifted ban is seen soon. retryAt is on
        // Redis's clock: only its distance from Redis's now carries over to this process's clock.
        const until = at + Math.min(decision.retryAt - decision.now, options.denyCacheMs);
        if (denials.size > 100_000) denials.clear();
        denials.set(key, { decision, cachedAt: at, until, cost: request.cost ?? 1, strikes: 0 });
      }
      return decision;
    },
  };
}
