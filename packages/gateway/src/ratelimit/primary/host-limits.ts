import type { GatewayConfig } from '../../config/index.js';
import { createCalendar } from '../calendar.js';
import { createMemoryLimiter, DEFAULT_MAX_ADDRESSES, type MemoryLimiter } from '../memory/index.js';
import type { Policy } from '../policy.js';
import type { RateDecision } from '../decision.js';
import {
  answerOf,
  CHECK_TYPE,
  DECIDED_TYPE,
  FAILED,
  isMessage,
  requestOf,
  SEED,
  seedOf,
  UNKNOWN,
  type CheckBatch,
  type DecidedBatch,
  type Engine,
  type WireAnswer,
} from './protocol.js';

/** All the primary needs of a forked worker: a `node:cluster` `Worker`. */
export interface HostedWorker {
  send(message: DecidedBatch, sendHandle: undefined, options: undefined, callback: (error: Error | null) => void): boolean;
  isConnected(): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

/** The gateway's in-process limits, kept by the primary for all its workers. */
export interface LimitsHost {
  /** Answers the checks `worker` sends (see `createPrimaryLimiter`); call it for every forked worker. */
  attach(worker: HostedWorker): void;
  /**
   * The settings of a reload: the counters are kept, unless `QUOTA_TIME_ZONE`,
   * `RATE_LIMIT_MAX_ADDRESSES` or `RATE_LIMIT_LOCAL_SHARE` changed (then those of the limiter
   * they shape start over, as at a restart).
   */
  reload(config: GatewayConfig['rateLimits']): void;
  /** The limiter of the gateway's limits without Redis, which the admin API reads (peeks) and lifts bans in. */
  processLimiter(): MemoryLimiter;
}

/** Policies the primary keeps by id, at most (past it, it forgets them all; workers send them again). */
const MAX_POLICIES = 20_000;
const NOTHING: WireAnswer = [];
const FAILURE: WireAnswer = [FAILED];
const ignore = () => {};

/** What shapes the primary's limiters; with RATE_LIMITS=off, the defaults (no worker asks). */
function settingsOf(config: GatewayConfig['rateLimits']) {
  const { quotaTimeZone, maxAddresses, localShare } =
    config.mode === 'off' ? { quotaTimeZone: 'UTC', maxAddresses: DEFAULT_MAX_ADDRESSES, localShare: 0.5 } : config;
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
export function hostLimits(config: GatewayConfig['rateLimits'], options: HostLimitsOptions = {}): LimitsHost {
  // Made when a worker first asks: with RATE_LIMITS=off none does (a reload may turn them on).
  let settings = settingsOf(config);
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

  function decide(batch: CheckBatch): Promise<WireAnswer[]> {
    const limiter = engineOf(batch.engine);
    const definitions = batch.policies;
    if (policies.size + definitions.length / 2 > maxPolicies) policies.clear();
    for (let i = 0; i < definitions.length; i += 2) policies.set(definitions[i] as string, JSON.parse(definitions[i + 1] as string) as Policy);
    // Every check is decided here, one after the other (the limiter's work is synchronous): the
    // promises only carry decisions already made.
    const decided: (Promise<RateDecision> | WireAnswer)[] = [];
    for (const check of batch.checks) {
      if (check[0] === SEED) {
        const seed = seedOf(check, policies);
        if (seed !== undefined) limiter.seed(seed.request, seed.used);
        decided.push(NOTHING);
        continue;
      }
      const missing: string[] = [];
      const request = requestOf(check, policies, missing);
      decided.push(request === undefined ? [UNKNOWN, ...missing] : limiter.check(request));
    }
    return Promise.all(decided).then((all) => all.map((one) => (Array.isArray(one) ? one : answerOf(one as RateDecision))));
  }

  return {
    reload(next) {
      settings = settingsOf(next);
    },
    processLimiter: () => engineOf('process'),
    attach(worker) {
      worker.on('message', (message) => {
        if (!isMessage<CheckBatch>(message, CHECK_TYPE)) return;
        const reply = (answers: WireAnswer[]) => {
          // A worker gone meanwhile needs no answer; a failed send is its channel closing.
          if (worker.isConnected()) worker.send({ type: DECIDED_TYPE, engine: message.engine, answers }, undefined, undefined, ignore);
        };
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
