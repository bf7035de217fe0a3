import { bookOfWorker, createRedisLedger, unavailableWhenFailing, type AccountSource, type MemoryLedger, type PlansInForce } from '../admin/index.js';
import type { GatewayConfig } from '../config/index.js';
import type { Port } from '../ipc/index.js';
import { createPlans, type Plans, type PlansContext } from '../plans/index.js';
import { createBanLifter, createCalendar, createRedisLimiter } from '../ratelimit/index.js';
import type { LimitsHost } from '../ratelimit/primary/index.js';
import type { RedisClient } from '../redis/index.js';
import { apiOperations } from '../routing/index.js';
import { bookOf } from './ledger.js';
import { plansContextOf } from './limits.js';
import type { Placement } from './placement.js';

export interface AdminSourceDeps {
  /** The settings in force and where they put the state (a reload replaces both). */
  readonly config: () => GatewayConfig;
  readonly placement: () => Placement;
  /** The limits the primary keeps for its workers, and the ledger their notes fill. */
  readonly host: LimitsHost;
  readonly ledger: MemoryLedger;
  /** The primary's own Redis client, for the settings in force. */
  readonly redis: () => RedisClient | undefined;
  /** The port of the worker that keeps the limits, when one does (the newest that listens). */
  readonly worker: () => Port | undefined;
  readonly now: () => number;
  /** For tests: the Redis script's clock. */
  readonly redisNow?: (() => number) | undefined;
}

/** What the primary reads of the settings' files; `undefined` where they cannot be read (the workers say why). */
function plansOfFiles(config: GatewayConfig): { readonly plans: Plans | undefined; readonly context: PlansContext } {
  let operations: ReadonlySet<string> | undefined;
  try {
    operations = new Set(apiOperations(config.openApiFile, config.publicBasePath).all.map((operation) => operation.operationId));
  } catch {
    operations = undefined;
  }
  const context = plansContextOf(config, operations);
  if (config.rateLimits.mode === 'off') return { plans: undefined, context };
  try {
    return { plans: createPlans(config.rateLimits.plansFile, { shadowPlans: config.rateLimits.shadowPlans }), context };
  } catch {
    return { plans: undefined, context };
  }
}

/**
 * Where the primary's admin API reads the limits, as the placement says: in Redis (the primary's
 * own client, with the rate-limit script's peeks), in the primary itself (the limits it keeps for
 * its workers, and the ledger their notes fill), or in the one worker that keeps its own (asked
 * over its port). Made again when the settings or the placement change (`reloaded`).
 */
export function createAdminSource(deps: AdminSourceDeps) {
  let files = plansOfFiles(deps.config());
  let made: { readonly key: string; readonly source: AccountSource } | undefined;

  function build(config: Extract<GatewayConfig['rateLimits'], { mode: 'on' }>, plans: Plans, placement: Placement): AccountSource {
    const settings = deps.config();
    const calendar = createCalendar(config.quotaTimeZone);
    const client = deps.redis();
    if (placement.limits === 'redis' && settings.redis !== undefined && client !== undefined) {
      const limiter = createRedisLimiter(client, { prefix: settings.redis.prefix, calendar, ...(deps.redisNow === undefined ? {} : { now: deps.redisNow }) });
      const engine = { limiter, liftBan: createBanLifter(client, settings.redis.prefix, deps.redisNow) };
      return unavailableWhenFailing(bookOf(config, { engine, plans, calendar, now: deps.now }, createRedisLedger(client, settings.redis.prefix)), 'Redis');
    }
    if (placement.limits === 'primary') {
      const limiter = deps.host.processLimiter();
      const engine = { limiter, liftBan: async (_subject: string, keyId: string) => limiter.liftBan(keyId) };
      return bookOf(config, { engine, plans, calendar, now: deps.now }, deps.ledger);
    }
    return bookOfWorker(deps.worker);
  }

  return {
    /** Where the limits are read now; `undefined` with RATE_LIMITS=off or plans that cannot be read. */
    source(): AccountSource | undefined {
      const { rateLimits, redis } = deps.config();
      const placement = deps.placement();
      const { plans } = files;
      if (rateLimits.mode === 'off' || plans === undefined) return undefined;
      const key = `${placement.limits} ${redis?.url} ${redis?.prefix} ${rateLimits.quotaTimeZone}`;
      if (made?.key !== key) made = { key, source: build(rateLimits, plans, placement) };
      return made.source;
    },
    plans(): PlansInForce | undefined {
      const { plans } = files;
      return plans === undefined ? undefined : { content: plans.content(), version: plans.version(), anonymous: plans.anonymous() };
    },
    plansContext: (): PlansContext => files.context,
    /** The settings changed (a reload in force): the plans and the API document are read again. */
    reloaded(): void {
      files = plansOfFiles(deps.config());
      made = undefined;
    },
  };
}
