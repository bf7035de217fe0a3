import type { GatewayConfig } from '../config/index.js';
import type { RedisRevocations } from '../auth/index.js';
import type { RedisClient } from '../redis/index.js';
import { createPlans, type Plans } from '../plans/index.js';
import {
  createBanLifter,
  createCalendar,
  createMemoryLimiter,
  createRateLimiting,
  createRedisLimiter,
  createSharedLimiter,
  type Calendar,
  type Limiter,
  type RateLimiting,
} from '../ratelimit/index.js';
import { createPrimaryLimiter, type ChannelToPrimary } from '../ratelimit/primary/index.js';

export interface RateLimitingDeps {
  /** Shared limits across instances when set; in process otherwise. */
  readonly redis?:
    | {
        readonly client: RedisClient;
        readonly prefix: string;
        readonly batchWindowMs?: number;
        /** The command budget: a call Redis starts later than this charges nothing. */
        readonly commandTimeoutMs?: number;
        /** True with REDIS_CLUSTER: operation ceilings cannot be decided atomically there. */
        readonly cluster?: boolean;
        /** The Redis deny-list: given, the limiter checks revocations in the limit's round trip. */
        readonly revocations?: RedisRevocations | undefined;
      }
    | undefined;
  /** For the in-process limiter and tests; the Redis limiter uses Redis TIME. */
  readonly now?: () => number;
  /** For tests: the Redis script's clock too (never set in production). */
  readonly redisNow?: () => number;
  /** The operationIds of the API document, which a plans file's `cost` and `operations` may name. */
  readonly operationIds?: ReadonlySet<string>;
  /** The gateway's event source: its plans' reloads are published under it. */
  readonly source?: object;
  /**
   * In a worker of a gateway of several (`node:cluster`): its channel to the primary, which keeps
   * the in-process counters of every worker (`hostLimits`). Without Redis every check is the
   * primary's; with Redis, the `local` failure policy's share is.
   */
  readonly primary?: ChannelToPrimary | undefined;
}

/** Why a plans file may hold no operation ceilings on a Redis Cluster. */
export const NO_CEILINGS_ON_CLUSTER = 'needs a Redis that is not a Cluster (REDIS_CLUSTER=true): a key and an operation live in different slots';

/** The rate limiting the configuration describes, and its parts that the admin API reads. */
export interface LimitsWiring {
  readonly rateLimiting: RateLimiting;
  readonly plans: Plans;
  /** The months and days of `QUOTA_TIME_ZONE`. */
  readonly calendar: Calendar;
  /**
   * The engine that keeps the limits, as the admin API reads it (peeks) and lifts a ban in it:
   * Redis's script (not the failure policies in front of it), or this process's limiter.
   * Absent in a worker whose limits are its primary's (the primary reads them there).
   */
  readonly engine: { readonly limiter: Limiter; liftBan(subject: string, keyId: string): Promise<boolean> } | undefined;
}

/** The rate limiting the configuration describes, or `undefined` with RATE_LIMITS=off. */
export function createRateLimitingFromConfig(config: GatewayConfig['rateLimits'], deps: RateLimitingDeps): LimitsWiring | undefined {
  if (config.mode === 'off') return undefined;
  const plans = createPlans(config.plansFile, {
    ...(deps.operationIds === undefined ? {} : { operations: deps.operationIds }),
    shadowPlans: config.shadowPlans,
    ...(deps.source === undefined ? {} : { source: deps.source }),
    // A request and its operation's ceiling are decided in one script call: their keys must share
    // a slot, which no two keys of different accounts and operations do on a Cluster.
    ...(deps.redis?.cluster === true ? { noCeilings: NO_CEILINGS_ON_CLUSTER } : {}),
  });
  const now = deps.now ?? Date.now;
  const calendar = createCalendar(config.quotaTimeZone);
  const { maxAddresses } = config;
  if (deps.redis === undefined) {
    if (deps.primary !== undefined)
      return { rateLimiting: createRateLimiting(createPrimaryLimiter(deps.primary, 'process'), plans), plans, calendar, engine: undefined };
    const memory = createMemoryLimiter({ now, calendar, maxAddresses });
    return {
      rateLimiting: createRateLimiting(memory, plans),
      plans,
      calendar,
      engine: { limiter: memory, liftBan: async (_subject, keyId) => memory.liftBan(keyId) },
    };
  }
  const { revocations } = deps.redis;
  const shared = createRedisLimiter(deps.redis.client, {
    prefix: deps.redis.prefix,
    batchWindowMs: deps.redis.batchWindowMs ?? 0,
    ...(deps.redis.commandTimeoutMs === undefined ? {} : { budgetMs: deps.redis.commandTimeoutMs }),
    ...(deps.redisNow === undefined ? {} : { now: deps.redisNow }),
    calendar,
    // A request answered from a lease skips the script's deny-list check: the list's copy answers it,
    // and only when it is sure (complete, and told of every revocation since).
    leases: { maxUnits: config.leaseUnits, ...(revocations === undefined ? {} : { revoked: (keyId: string) => !revocations.knownNotRevoked(keyId) }) },
  });
  const limiter = createSharedLimiter({
    shared,
    onFailure: config.onRedisFailure,
    localShare: config.localShare,
    denyCacheMs: config.denyCacheMs,
    now,
    calendar,
    maxAddresses,
    revocations,
    ...(deps.primary !== undefined && config.onRedisFailure === 'local' ? { local: createPrimaryLimiter(deps.primary, 'local') } : {}),
  });
  const { client, prefix } = deps.redis;
  // Defined (its script registered with the client) only when a ban is first lifted: never, unless the admin API is on.
  let liftBan: ((subject: string, keyId: string) => Promise<boolean>) | undefined;
  return {
    rateLimiting: createRateLimiting(limiter, plans, { checksRevocation: revocations !== undefined }),
    plans,
    calendar,
    engine: { limiter: shared, liftBan: (subject, keyId) => (liftBan ??= createBanLifter(client, prefix, deps.redisNow))(subject, keyId) },
  };
}
