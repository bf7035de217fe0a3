import { createBatch, redisKeyNames, type RedisClient } from '../../redis/index.js';
import { createCalendar, type Calendar } from '../calendar.js';
import { revokedDecision, type RateDecision } from '../decision.js';
import type { Limiter, LimitRequest } from '../limiter.js';
import { createLeaseTable } from './leases.js';
import { decisionsOf, scriptCall, type ScriptRequest } from './redis-call.js';
import { createClockOffset } from './redis-clock.js';
import { RATE_LIMIT_SCRIPT } from './redis-script.js';

export interface RedisLimiterOptions {
  readonly prefix: string;
  /** ms since the epoch, for tests only; production uses Redis TIME (one clock for all instances). */
  readonly now?: () => number;
  /** How long a batch stays open: 0 (the default) closes it at the end of the event-loop turn. */
  readonly batchWindowMs?: number;
  /** Requests at most in one script call. */
  readonly maxBatch?: number;
  /**
   * The command budget (ms): a call that Redis starts later than this after it was sent (on
   * Redis's clock, learnt from earlier replies) decides nothing and charges nothing, since the
   * gateway has answered its requests without it by then. Absent: no deadline.
   */
  readonly budgetMs?: number;
  /** The months of monthly quotas (`QUOTA_TIME_ZONE`); UTC by default. */
  readonly calendar?: Calendar;
  /**
   * Bounded leases (`leases.ts`, `lease-lua.ts`): a busy account's requests are admitted from units
   * charged ahead to this process, without a round trip. `maxUnits`: the most one lease holds (0:
   * none). `revoked`: the deny-list's local copy, which a request decided from a lease is checked
   * against (see `LeaseOptions.revoked`). Absent: every request is decided in Redis.
   */
  readonly leases?: { readonly maxUnits: number; readonly revoked?: (keyId: string) => boolean };
}

/** A script call that Redis started after its deadline: nothing was decided or charged. */
export class LateDecisionError extends Error {
  constructor() {
    super('Redis started the rate-limit call after its budget: nothing was charged');
    this.name = 'LateDecisionError';
  }
}

/** Requests at most per script call: keeps one run of the script well under a millisecond. */
export const MAX_BATCH = 128;

/**
 * While a script call is out, the next waits for its answer, at most this long: the batch grows
 * with the load (a loaded gateway's calls carry what arrived during one round trip). A few ms: a
 * healthy Redis answers well within it even on a busy host, and a stalled one holds no request
 * much longer than it would anyway.
 */
export const HOLD_WHILE_OUT_MS = 2;

/** How often leases that ended, or sit unused, are given back. */
const GIVE_BACK_EVERY_MS = 250;

/** One request's result: a shard's call can fail while the others of the batch succeed. */
type Outcome = { readonly decision: RateDecision } | { readonly error: unknown };

/**
 * The limiter shared by every gateway instance. Requests that arrive in the same event-loop turn
 * (or batch window) are decided together: one script call decides them in arrival order, each
 * exactly as alone, atomically. A request may also ask for its key's revocation (`checkRevoked`),
 * answered in the same call. On a cluster, a call holds the accounts of one slot only, and the
 * deny-list (in a slot of its own) is asked first, for the whole batch in one command.
 */
export function createRedisLimiter(redis: RedisClient, options: RedisLimiterOptions): Limiter {
  const run = redis.defineScript('rateLimit', RATE_LIMIT_SCRIPT);
  const names = redisKeyNames(options.prefix);
  const denyShard = redis.shardOf(names.revoked);
  const clock = () => (options.now === undefined ? '' : options.now());
  const offset = createClockOffset();
  const calendar = options.calendar ?? createCalendar();
  const deadline = () => {
    const known = offset.get();
    return options.budgetMs === undefined || options.now !== undefined || known === undefined ? '' : Math.ceil(Date.now() + known + options.budgetMs);
  };

  const leases =
    options.leases === undefined || options.leases.maxUnits <= 0
      ? undefined
      : createLeaseTable({
          maxUnits: options.leases.maxUnits,
          now: options.now ?? (() => performance.now()),
          ...(options.leases.revoked === undefined ? {} : { revoked: options.leases.revoked }),
        });

  /** One script call for `requests`, all of one shard; `withDenyList`: the deny-list is there too. */
  async function decide(requests: readonly ScriptRequest[], withDenyList: boolean): Promise<RateDecision[]> {
    const sentAt = options.now?.() ?? performance.now();
    const at = options.now?.() ?? Date.now() + (offset.get() ?? 0);
    const call = scriptCall(
      requests,
      { keyOf: names.limits, denyList: withDenyList ? names.revoked : undefined, clock: clock(), deadline: deadline() },
      calendar,
      at,
    );
    const reply = (await run(call.keys, call.args)) as number[];
    if (options.now === undefined) offset.observe((reply[0] as number) - Date.now());
    if (reply.length === 1) throw new LateDecisionError();
    const { decisions, grants } = decisionsOf(requests, reply, calendar);
    return leases === undefined ? decisions : leases.settle(requests, decisions, grants, sentAt);
  }

  async function send(asked: readonly ScriptRequest[]): Promise<Outcome[]> {
    if (leases === undefined) return sendTo(asked);
    // A lease granted while these waited for the call before (the call that asked for it) answers
    // them now: sent, they would give it back unused.
    const outcomes: Outcome[] = new Array(asked.length);
    const left: number[] = [];
    for (let i = 0; i < asked.length; i++) {
      const request = asked[i] as ScriptRequest;
      const leased = request.lease?.only === true ? undefined : leases.take(request);
      if (leased === undefined) left.push(i);
      else outcomes[i] = { decision: leased };
    }
    if (left.length === 0) return outcomes;
    const requests = leases.terms(left.length === asked.length ? asked : left.map((i) => asked[i] as ScriptRequest));
    const sent = await sendTo(requests).catch((error: unknown) => {
      leases.abandon(requests);
      throw error;
    });
    left.forEach((i, j) => (outcomes[i] = sent[j] as Outcome));
    return outcomes;
  }

  async function sendTo(requests: readonly ScriptRequest[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = new Array(requests.length);
    const shards = new Map<number, number[]>();
    for (let i = 0; i < requests.length; i++) {
      const shard = redis.shardOf(names.limits((requests[i] as LimitRequest).subject));
      const members = shards.get(shard);
      if (members === undefined) shards.set(shard, [i]);
      else members.push(i);
    }
    const alone = shards.size === 1 && shards.has(denyShard);
    let pending = [...shards.values()];
    if (!alone) {
      // The deny-list is in another slot: ask it first, for every request of the batch at once.
      const asking = requests.flatMap((request, i) => (request.checkRevoked === true && request.keyId !== undefined ? [i] : []));
      if (asking.length > 0) {
        const found = await redis.sMisMember(
          names.revoked,
          asking.map((i) => (requests[i] as LimitRequest).keyId as string),
        );
        const revoked = new Set(asking.filter((_, j) => found[j] === true));
        leases?.abandon([...revoked].map((i) => requests[i] as ScriptRequest));
        for (const i of revoked) outcomes[i] = { decision: revokedDecision((requests[i] as LimitRequest).policy, Number(clock() || Date.now()), 'redis') };
        pending = pending.map((members) => members.filter((i) => !revoked.has(i))).filter((members) => members.length > 0);
      }
    }
    await Promise.all(
      pending.map(async (members) => {
        try {
          const decisions = await decide(
            members.map((i) => requests[i] as ScriptRequest),
            alone,
          );
          members.forEach((i, j) => (outcomes[i] = { decision: decisions[j] as RateDecision }));
        } catch (error) {
          leases?.abandon(members.map((i) => requests[i] as ScriptRequest));
          for (const i of members) outcomes[i] = { error };
        }
      }),
    );
    return outcomes;
  }

  const ask = createBatch<ScriptRequest, Outcome>({
    send,
    windowMs: options.batchWindowMs ?? 0,
    maxItems: options.maxBatch ?? MAX_BATCH,
    holdWhileOutMs: HOLD_WHILE_OUT_MS,
  });
  if (leases !== undefined) {
    // A give-back that fails leaves its units charged: under-admission within the bound, nothing more.
    const giveBack = () => {
      for (const back of leases.due()) ask(back).catch(() => {});
    };
    setInterval(giveBack, GIVE_BACK_EVERY_MS).unref();
  }
  return {
    async check(request: LimitRequest): Promise<RateDecision> {
      const leased = leases?.take(request);
      if (leased !== undefined) return leased;
      const outcome = await ask(request);
      if ('error' in outcome) throw outcome.error;
      return outcome.decision;
    },
    async warm(): Promise<void> {
      // The script with no request: it reads Redis's clock and returns it, deciding nothing, so
      // the first calls' deadlines are on Redis's clock from the start.
      const reply = (await run([], [clock(), 0, '0', 0, '', 0])) as number[];
      if (options.now === undefined) offset.observe((reply[0] as number) - Date.now());
    },
  };
}
