import type { RedisRevocations } from '../auth/index.js';
import type { GatewayConfig } from '../config/index.js';
import { QUESTION, type Port } from '../ipc/index.js';
import { createPlans, type Plans, type PlansContext } from '../plans/index.js';
import {
  createBanLifter,
  createCalendar,
  createMemoryLimiter,
  createRateLimiting,
  createRedisLimiter,
  createRedisViews,
  createSharedLimiter,
  type Calendar,
  type Limiter,
  type RateLimiting,
  type RedisViews,
  type UsedBySubject,
} from '../ratelimit/index.js';
import { createPrimaryLimiter, type HostSettings } from '../ratelimit/primary/index.js';
import type { RedisClient } from '../redis/index.js';
import type { Placement } from './placement.js';

type LimitsOn = Extract<GatewayConfig['rateLimits'], { mode: 'on' }>;

/** The Redis the limits are kept in, as the worker's request path uses it. */
export interface LimitsRedis {
  readonly client: RedisClient;
  readonly prefix: string;
  readonly batchWindowMs: number;
  /** The command budget: a call Redis starts later than this charges nothing. */
  readonly commandTimeoutMs: number;
  /** The Redis deny-list: given, the limiter checks revocations in the limit's round trip. */
  readonly revocations: RedisRevocations | undefined;
}

export interface LimitsDeps {
  /** Where the counters are (see `Placement`); `port` reaches the primary when they are there. */
  readonly placement: Placement;
  readonly port?: Port | undefined;
  /** With the limits in Redis. */
  readonly redis?: LimitsRedis | undefined;
  /** The clock of limits in process; tests inject one. */
  readonly now: () => number;
  /** For tests: the Redis script's clock too (production uses Redis TIME). */
  readonly redisNow?: (() => number) | undefined;
  /** What the plans file may name and hold (`plansContextOf`). */
  readonly context: PlansContext;
  /** The gateway's event source: its plans' reloads are published under it. */
  readonly source: object;
}

/** The engine that keeps the limits, as the admin API reads it (peeks) and lifts a ban in it. */
export interface LimitsEngine {
  readonly limiter: Limiter;
  liftBan(subject: string, keyId: string): Promise<boolean>;
}

/** A worker's limits: what the request path asks, and what the admin API reads where they are this process's. */
export interface Limits {
  readonly rateLimiting: RateLimiting;
  readonly plans: Plans;
  /** The months and days of `QUOTA_TIME_ZONE`. */
  readonly calendar: Calendar;
  /** The engine of the counters this process keeps (Redis's script, or its memory); absent where the primary keeps them. */
  readonly engine: LimitsEngine | undefined;
  /** With limits in Redis and the `local` policy: what Redis said last of each account, as this worker saw it. */
  readonly redisViews?: RedisViews | undefined;
}

/** Why a plans file may hold no operation ceilings on a Redis Cluster. */
export const NO_CEILINGS_ON_CLUSTER = 'needs a Redis that is not a Cluster (REDIS_CLUSTER=true): a key and an operation live in different slots';

/**
 * What a plans file is checked against: the API document's operations, and on a Redis Cluster no
 * operation ceilings (a request and its operation's ceiling are decided in one script call, and
 * no two keys of different accounts and operations share a slot there).
 */
export function plansContextOf(config: GatewayConfig, operations: ReadonlySet<string> | undefined): PlansContext {
  return { ...(operations === undefined ? {} : { operations }), ...(config.redis?.cluster === true ? { noCeilings: NO_CEILINGS_ON_CLUSTER } : {}) };
}

/** What shapes the limits the primary keeps for its workers (see `hostLimits`). */
export function hostSettingsOf(config: GatewayConfig['rateLimits']): HostSettings | undefined {
  return config.mode === 'off' ? undefined : config;
}

/** The limits `config` describes where `deps.placement` puts them, or `undefined` with RATE_LIMITS=off. */
export function assembleLimits(config: GatewayConfig['rateLimits'], deps: LimitsDeps): Limits | undefined {
  if (config.mode === 'off' || deps.placement.limits === undefined) return undefined;
  const plans = createPlans(config.plansFile, { ...deps.context, shadowPlans: config.shadowPlans, source: deps.source });
  const calendar = createCalendar(config.quotaTimeZone);
  const parts = { plans, calendar };
  if (deps.placement.limits === 'primary')
    return { ...parts, rateLimiting: createRateLimiting(primaryLimits(config, deps, calendar), plans), engine: undefined };
  if (deps.placement.limits === 'worker' || deps.redis === undefined) {
    const memory = createMemoryLimiter({ now: deps.now, calendar, maxAddresses: config.maxAddresses });
    return {
      ...parts,
      rateLimiting: createRateLimiting(memory, plans),
      engine: { limiter: memory, liftBan: async (_subject, keyId) => memory.liftBan(keyId) },
    };
  }
  return { ...parts, ...sharedLimits(config, deps, deps.redis, calendar, plans) };
}

/** Limits in Redis: its script behind the failure policies, the `local` one where the placement puts it. */
function sharedLimits(config: LimitsOn, deps: LimitsDeps, redis: LimitsRedis, calendar: Calendar, plans: Plans) {
  const { revocations } = redis;
  const shared = createRedisLimiter(redis.client, {
    prefix: redis.prefix,
    batchWindowMs: redis.batchWindowMs,
    budgetMs: redis.commandTimeoutMs,
    ...(deps.redisNow === undefined ? {} : { now: deps.redisNow }),
    calendar,
    // A request answered from a lease skips the script's deny-list check: the list's copy answers it,
    // and only when it is sure (complete, and told of every revocation since).
    leases: { maxUnits: config.leaseUnits, ...(revocations === undefined ? {} : { revoked: (keyId: string) => !revocations.knownNotRevoked(keyId) }) },
  });
  const views = createRedisViews({ maxAddresses: config.maxAddresses });
  const inPrimary = deps.placement.fallback === 'primary';
  const limiter = createSharedLimiter({
    shared,
    views,
    onFailure: config.onRedisFailure,
    localShare: config.localShare,
    denyCacheMs: config.denyCacheMs,
    now: deps.now,
    calendar,
    maxAddresses: config.maxAddresses,
    revocations,
    ...(inPrimary
      ? {
          local: createPrimaryLimiter(portOf(deps), 'local', { deadlineMs: config.primaryTimeoutMs }),
          // The local share is the whole gateway's: it starts from what every worker saw Redis admit.
          othersViews: async (subjects: readonly string[]) =>
            (await portOf(deps).ask(QUESTION.redisViews, config.primaryTimeoutMs, subjects)) as UsedBySubject | undefined,
        }
      : {}),
  });
  // Made (its script registered with the client) only when a ban is first lifted: never, unless the admin API is on.
  let liftBan: LimitsEngine['liftBan'] | undefined;
  const engine: LimitsEngine = {
    limiter: shared,
    liftBan: (subject, keyId) => (liftBan ??= createBanLifter(redis.client, redis.prefix, deps.redisNow))(subject, keyId),
  };
  return { rateLimiting: createRateLimiting(limiter, plans, { checksRevocation: revocations !== undefined }), engine, redisViews: views };
}

/**
 * Limits kept by the primary, asked over the port, behind the failure policy for a primary that
 * does not answer within `RATE_LIMIT_PRIMARY_TIMEOUT_MS` (stopped, or starved): `local` limits
 * in this worker at its part of `RATE_LIMIT_LOCAL_SHARE` (the share divided among the workers,
 * which cannot ask each other), counting first that part of what the primary had admitted. No
 * refusal is held here (`denyCacheMs` 0): the primary counts every strike.
 */
function primaryLimits(config: LimitsOn, deps: LimitsDeps, calendar: Calendar): Limiter {
  return createSharedLimiter({
    shared: createPrimaryLimiter(portOf(deps), 'process', { deadlineMs: config.primaryTimeoutMs }),
    store: 'primary',
    onFailure: config.onPrimaryFailure,
    localShare: config.localShare / deps.placement.workers,
    denyCacheMs: 0,
    now: deps.now,
    calendar,
    maxAddresses: config.maxAddresses,
  });
}

function portOf(deps: LimitsDeps): Port {
  if (deps.port === undefined) throw new Error('limits kept by the primary need the channel to it');
  return deps.port;
}
