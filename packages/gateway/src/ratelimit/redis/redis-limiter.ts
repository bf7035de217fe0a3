import { createBatch, redisKeyNames, ScriptError, type RedisClient } from '../../redis/index.js';
import { createCalendar } from '../calendar.js';
import { revokedDecision, type RateDecision } from '../decision.js';
import type { Limiter, LimitRequest } from '../limiter.js';
import { createLeaseRecall, untilNotHeld } from './lease-recall.js';
import { createLeaseTable } from './leases.js';
import { isolateFaults, LateDecisionError, UnchargedError } from './call-faults.js';
import { scriptCall, type ScriptCall, type ScriptRequest } from './redis-call.js';
import { createClockOffset } from './redis-clock.js';
import { decisionsOf, valuesOf } from './redis-reply.js';
import { HOLD_WHILE_OUT_MS, MAX_BATCH, WARM_READINGS, type RedisLimiterOptions } from './redis-limiter-options.js';
import { RATE_LIMIT_LIBRARY, RATE_LIMIT_SCRIPT } from './redis-script.js';

/** How often leases that ended, or sit unused, are given back. */
const GIVE_BACK_EVERY_MS = 250;

/**
 * One request's result: a shard's call can fail while the others of the batch succeed. `held`:
 * refused only for units leased and not given back (`lease-recall.ts`).
 */
type Outcome = { readonly decision: RateDecision; readonly held?: boolean } | { readonly error: unknown };

/** What a script call says of one request: its decision, and whether only units leased elsewhere refused it. */
interface Decided {
  readonly decision: RateDecision;
  readonly held: boolean;
}

/**
 * The limiter shared by every gateway instance. Requests that arrive in the same event-loop turn
 * (or batch window) are decided together: one script call decides them in arrival order, each
 * exactly as alone, atomically. A request may also ask for its key's revocation (`checkRevoked`),
 * answered in the same call. On a cluster, a call holds the accounts of one slot only, and the
 * deny-list (in a slot of its own) is asked first, for the whole batch in one command.
 */

export function createRedisLimiter(redis: RedisClient, options: RedisLimiterOptions): Limiter {
  const run = redis.defineScript('rateLimit', RATE_LIMIT_SCRIPT, { library: RATE_LIMIT_LIBRARY, binary: true });
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
  // Declared before the recall's listener can run: a recalled lease goes back through the batch.
  let ask: (request: ScriptRequest) => Promise<Outcome> = () => Promise.reject(new Error('not ready'));
  const recall = createLeaseRecall(
    redis,
    names.leaseRecalls,
    leases === undefined
      ? undefined
      : (subject) => {
          const back = leases.recall(subject);
          if (back !== undefined) ask(back).catch(() => {});
        },
  );

  /** One script call for `requests`, all of one shard; `withDenyList`: the deny-list is there too. */
  async function decide(requests: readonly ScriptRequest[], withDenyList: boolean): Promise<Decided[]> {
    const [sentAt, sentWall] = [options.now?.() ?? performance.now(), Date.now()];
    const at = options.now?.() ?? Date.now() + (offset.get() ?? 0);
    let call: ScriptCall;
    try {
      call = scriptCall(
        requests,
        { keyOf: names.limits, denyList: withDenyList ? names.revoked : undefined, clock: clock(), deadline: deadline(), holder: recall.holder },
        calendar,
        at,
      );
    } catch (error) {
      throw new UnchargedError(error);
    }
    const packed = await run(call.keys, call.args).catch((error: unknown) => {
      throw error instanceof ScriptError ? new UnchargedError(error) : error;
    });
    const reply = valuesOf(packed as Buffer);
    if (options.now === undefined) offset.observe((reply[0] as number) - Date.now(), (reply[0] as number) - sentWall);
    if (reply.length === 1) throw new LateDecisionError();
    const { decisions, grants, held } = decisionsOf(requests, reply, calendar);
    const settled = leases === undefined ? decisions : leases.settle(requests, decisions, grants, sentAt);
    return settled.map((decision, i) => ({ decision, held: held[i] === true }));
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
    // A request the script cannot take fails alone: the others of its call are decided (`isolateFaults`).
    await Promise.all(
      pending.map(async (members) => {
        const decided = await isolateFaults(
          members.map((i) => requests[i] as ScriptRequest),
          (some) => decide(some, alone),
        );
        members.forEach((i, j) => {
          const outcome = decided[j] as (typeof decided)[number];
          if ('error' in outcome) {
            leases?.abandon([requests[i] as ScriptRequest]);
            outcomes[i] = outcome;
          } else {
            outcomes[i] = outcome.decision;
          }
        });
      }),
    );
    return outcomes;
  }

  ask = createBatch<ScriptRequest, Outcome>({
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
      // Decided again while units leased and not given back are all that refuse it (no strike counted).
      const again = async (): Promise<Outcome> => {
        const decision = leases?.take(request);
        return decision === undefined ? ask(request) : { decision };
      };
      const outcome = await untilNotHeld(await ask(request), again, () => recall.ask(request.subject));
      if ('error' in outcome) throw outcome.error;
      return outcome.decision;
    },
    async warm(): Promise<void> {
      // The script with no request returns Redis's clock, deciding nothing: the first calls' deadlines
      // are on it. A cold process on a busy host reads its first reply late: three readings.
      for (let i = 0; i < WARM_READINGS; i++) {
        const sentWall = Date.now();
        const reply = valuesOf((await run([], [clock(), 0, '0', 0, '', recall.holder, 0])) as Buffer);
        if (options.now === undefined) offset.observe((reply[0] as number) - Date.now(), (reply[0] as number) - sentWall);
      }
    },
  };
}
