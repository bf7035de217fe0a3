import { MESSAGE, type Port } from '../../ipc/index.js';
import { createCalendar } from '../calendar.js';
import { createMemoryLimiter, DEFAULT_MAX_ADDRESSES, type MemoryLimiter } from '../memory/index.js';
import type { Policy } from '../policy.js';
import {
  answerOf,
  FAILED,
  FAULT,
  requestOf,
  SEED,
  seedOf,
  UNKNOWN,
  type CheckBatch,
  type DecidedBatch,
  type Engine,
  type WireAnswer,
  type WireCheck,
} from './protocol.js';

/**
 * What shapes the primary's limiters: the limits' settings (`RATE_LIMITS=off` keeps the
 * defaults: no worker asks). Counters are kept across a change of anything else.
 */
export interface HostSettings {
  readonly quotaTimeZone: string;
  readonly maxAddresses: number;
  readonly localShare: number;
}

/** The gateway's in-process limits, kept by the primary for all its workers. */
export interface LimitsHost {
  /** Answers the checks a worker sends over `port` (see `createPrimaryLimiter`); call it for every worker. */
  attach(port: Port): void;
  /**
   * The settings of a reload: the counters are kept, unless `QUOTA_TIME_ZONE`,
   * `RATE_LIMIT_MAX_ADDRESSES` or `RATE_LIMIT_LOCAL_SHARE` changed (then those of the limiter
   * they shape start over, as at a restart).
   */
  reload(settings: HostSettings | undefined): void;
  /** The limiter of the gateway's limits without Redis, which the admin API reads (peeks) and lifts bans in. */
  processLimiter(): MemoryLimiter;
}

/** Policies the primary keeps by id, at most (past it, it forgets them all; workers send them again). */
const MAX_POLICIES = 20_000;
const NOTHING: WireAnswer = [];
const FAILURE: WireAnswer = [FAILED];
const FAULTY: WireAnswer = [FAULT];
const DEFAULTS: HostSettings = { quotaTimeZone: 'UTC', maxAddresses: DEFAULT_MAX_ADDRESSES, localShare: 0.5 };

/** The policy ids a check names: its own, and (a check, not a seed) each layer's. */
function policyIdsOf(check: WireCheck): string[] {
  const ids = [check[3] as string];
  if (check[0] !== SEED) for (let i = 7; i < check.length; i += 2) ids.push(check[i] as string);
  return ids;
}

/** The settings in force (the defaults without limits), and the shape they give a limiter. */
function settingsOf(given: HostSettings | undefined) {
  const { quotaTimeZone, maxAddresses, localShare } = given ?? DEFAULTS;
  return { quotaTimeZone, maxAddresses, localShare, shape: `${quotaTimeZone}|${maxAddresses}` };
}

export interface HostLimitsOptions {
  /** ms since the epoch; injected so tests control time. */
  readonly now?: () => number;
  /** Policies kept by id at most (20,000; tests make it small to see them sent again). */
  readonly maxPolicies?: number;
}

/**
 * The limits of a gateway without Redis, in its primary: one `createMemoryLimiter` (the settings'
 * calendar and `RATE_LIMIT_MAX_ADDRESSES`) that every worker asks, so the workers together admit
 * exactly what one process would, and the counters outlive any worker (a crash, a reload). With
 * Redis, the same for the `local` failure policy: one share of the plan for the whole gateway.
 * Each batch is decided in one go, in the order of its checks, on the primary's clock.
 */
export function hostLimits(given: HostSettings | undefined, options: HostLimitsOptions = {}): LimitsHost {
  // Made when a worker first asks: with RATE_LIMITS=off none does (a reload may turn them on).
  let settings = settingsOf(given);
  const engines = new Map<Engine, { readonly limiter: MemoryLimiter; readonly made: string }>();
  const engineOf = (engine: Engine): MemoryLimiter => {
    const shape = engine === 'local' ? `${settings.shape}|${settings.localShare}` : settings.shape;
    let found = engines.get(engine);
    if (found === undefined || found.made !== shape) {
      const limiter = createMemoryLimiter({
        share: engine === 'local' ? settings.localShare : 1,
        calendar: createCalendar(settings.quotaTimeZone),
        maxAddresses: settings.maxAddresses,
        ...(options.now === undefined ? {} : { now: options.now }),
      });
      engines.set(engine, (found = { limiter, made: shape }));
    }
    return found.limiter;
  };
  const policies = new Map<string, Policy>();
  const maxPolicies = options.maxPolicies ?? MAX_POLICIES;

  /**
   * Each check of the batch alone: one that throws (a policy the limiter cannot read, say) is
   * answered `FAULT`, and the others of the batch are decided as if it were not there.
   */
  function decide(batch: CheckBatch): Promise<WireAnswer[]> {
    // Read past its deadline (the primary was stopped or starved): the worker answered without it.
    if (batch.deadline !== null && batch.deadline !== undefined && Date.now() > batch.deadline) return Promise.resolve(batch.checks.map(() => FAILURE));
    const limiter = engineOf(batch.engine);
    const definitions = batch.policies;
    if (policies.size + definitions.length / 2 > maxPolicies) policies.clear();
    /** Ids whose definition does not parse: the checks naming them fail, and only they. */
    const unreadable = new Set<string>();
    for (let i = 0; i < definitions.length; i += 2) {
      try {
        policies.set(definitions[i] as string, JSON.parse(definitions[i + 1] as string) as Policy);
      } catch {
        unreadable.add(definitions[i] as string);
      }
    }
    // Every check is decided here, one after the other (the limiter's work is synchronous): the
    // promises only carry decisions already made.
    const decided: (Promise<WireAnswer> | WireAnswer)[] = [];
    for (const check of batch.checks) {
      if (unreadable.size > 0 && policyIdsOf(check).some((id) => unreadable.has(id))) {
        decided.push(FAULTY);
        continue;
      }
      try {
        if (check[0] === SEED) {
          const seed = seedOf(check, policies);
          if (seed !== undefined) limiter.seed(seed.request, seed.used);
          decided.push(NOTHING);
          continue;
        }
        const missing: string[] = [];
        const request = requestOf(check, policies, missing);
        decided.push(request === undefined ? [UNKNOWN, ...missing] : limiter.check(request).then(answerOf, () => FAULTY));
      } catch {
        decided.push(check[0] === SEED ? NOTHING : FAULTY);
      }
    }
    return Promise.all(decided);
  }

  return {
    reload(next) {
      settings = settingsOf(next);
    },
    processLimiter: () => engineOf('process'),
    attach(port) {
      port.on<CheckBatch>(MESSAGE.limitsCheck, (message) => {
        // A worker gone meanwhile needs no answer: the port drops it.
        const reply = (answers: WireAnswer[]) => port.send({ type: MESSAGE.limitsDecided, engine: message.engine, answers } satisfies DecidedBatch);
        let answered: Promise<WireAnswer[]>;
        try {
          answered = decide(message);
        } catch {
          answered = Promise.reject(new Error('undecided'));
        }
        answered.then(reply, () => reply(message.checks.map(() => FAILURE)));
      });
    },
  };
}
