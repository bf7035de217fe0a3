import type { Worker } from 'node:cluster';
import type { Logger } from 'pino';
import {
  attachLedger,
  createAccountBook,
  createAdmin,
  createMemoryLedger,
  createRedisLedger,
  type AccountSource,
  type AdminTokens,
  type LimitsReading,
  unavailableWhenFailing,
} from '../admin/index.js';
import type { GatewayConfig } from '../config/index.js';
import { createPlans, type Plans, type PlansContext } from '../plans/index.js';
import { createBanLifter, createCalendar, createRedisLimiter } from '../ratelimit/index.js';
import type { LimitsHost } from '../ratelimit/primary/index.js';
import { createRedisClient, type RedisClient } from '../redis/index.js';
import { apiOperations } from '../routing/index.js';
import { NO_CEILINGS_ON_CLUSTER } from '../wiring/rate-limiting.js';
import { bookOfWorker } from './worker-book.js';

export interface PrimaryAdminOptions {
  /** The settings in force, and the workers they run (a reload replaces both). */
  readonly config: () => GatewayConfig;
  readonly workers: () => number;
  readonly tokens: () => AdminTokens;
  /** The limits in process the primary keeps for its workers (without Redis, and `WORKERS` of 2 or more). */
  readonly limits: LimitsHost;
  /** The workers that listen, oldest first: with `WORKERS=1` the one that keeps the limits is the newest. */
  readonly listening: () => readonly Worker[];
  /** The gateway's metrics as JSON, every worker's summed. */
  readonly metrics: () => Promise<readonly { readonly name: string }[]>;
  readonly logger: Logger;
}

/** What the primary reads of its settings' files for the admin API; `undefined` where they cannot be read (the workers say why). */
interface FromFiles {
  readonly plans: Plans | undefined;
  readonly context: PlansContext;
}

function fromFiles(config: GatewayConfig): FromFiles {
  let operations: ReadonlySet<string> | undefined;
  try {
    operations = new Set(apiOperations(config.openApiFile, config.publicBasePath).all.map((operation) => operation.operationId));
  } catch {
    operations = undefined;
  }
  const context: PlansContext = {
    ...(operations === undefined ? {} : { operations }),
    ...(config.redis?.cluster === true ? { noCeilings: NO_CEILINGS_ON_CLUSTER } : {}),
  };
  if (config.rateLimits.mode === 'off') return { plans: undefined, context };
  try {
    return { plans: createPlans(config.rateLimits.plansFile, { shadowPlans: config.rateLimits.shadowPlans }), context };
  } catch {
    return { plans: undefined, context };
  }
}

/**
 * The admin API in the primary, which serves the admin listener, reading the limits where they
 * are kept: in Redis (with a client of its own, and the rate-limit script's peeks), in the
 * primary itself for several workers without Redis (the limits it keeps for them, and the ledger
 * their notes fill, `attach`), or in the one worker that keeps its own (asked over IPC). Its plans
 * and files are read again when the settings change (`reloaded`).
 */
export function primaryAdmin(options: PrimaryAdminOptions) {
  const { config } = options;
  let files = fromFiles(config());
  let redis: { readonly url: string; readonly client: RedisClient } | undefined;
  const ledger = createMemoryLedger();
  // Connected from the start: the client connects in the background, and fails what it is asked meanwhile.
  const atStart = config().redis;
  if (atStart !== undefined) redisOf(atStart.url, atStart);

  /** The primary's own Redis client, made when first needed and again when REDIS_URL changes. */
  function redisOf(url: string, settings: NonNullable<GatewayConfig['redis']>): RedisClient {
    if (redis?.url !== url) {
      void redis?.client.close();
      redis = { url, client: createRedisClient(url, settings) };
    }
    return redis.client;
  }

  function reading(plans: Plans, limiter: LimitsReading['limiter'], liftBan: LimitsReading['liftBan']): LimitsReading {
    const limits = config().rateLimits;
    const calendar = createCalendar(limits.mode === 'on' ? limits.quotaTimeZone : 'UTC');
    return { limiter, plans, calendar, now: Date.now, shadowPlans: limits.mode === 'on' ? limits.shadowPlans : new Set(), liftBan };
  }

  let made: { readonly key: string; readonly source: AccountSource } | undefined;
  /** Where the limits are read now, made again when what it depends on changed. */
  function source(): AccountSource | undefined {
    const settings = config();
    const { plans } = files;
    if (settings.rateLimits.mode === 'off' || plans === undefined) return undefined;
    const where = settings.redis === undefined ? (options.workers() > 1 ? 'primary' : 'worker') : `redis ${settings.redis.url} ${settings.redis.prefix}`;
    const key = `${where} ${settings.rateLimits.quotaTimeZone}`;
    if (made?.key === key) return made.source;
    let built: AccountSource;
    if (settings.redis !== undefined) {
      const client = redisOf(settings.redis.url, settings.redis);
      const limiter = createRedisLimiter(client, { prefix: settings.redis.prefix, calendar: createCalendar(settings.rateLimits.quotaTimeZone) });
      const book = createAccountBook(reading(plans, limiter, createBanLifter(client, settings.redis.prefix)), createRedisLedger(client, settings.redis.prefix));
      built = unavailableWhenFailing(book, 'Redis');
    } else if (where === 'primary') {
      const limiter = options.limits.processLimiter();
      built = createAccountBook(
        reading(plans, limiter, async (_subject, keyId) => limiter.liftBan(keyId)),
        ledger,
      );
    } else {
      built = bookOfWorker(() => options.listening().at(-1));
    }
    made = { key, source: built };
    return built;
  }

  const handler = createAdmin({
    config,
    tokens: options.tokens,
    source,
    redis: () => {
      const settings = config().redis;
      return settings === undefined ? undefined : redisOf(settings.url, settings);
    },
    plans: () => {
      const { plans } = files;
      return plans === undefined ? undefined : { content: plans.content(), version: plans.version(), anonymous: plans.anonymous() };
    },
    plansContext: () => files.context,
    metrics: options.metrics,
    workers: options.workers,
    logger: options.logger,
  });

  return {
    handler,
    /** For each forked worker: its ledger notes, when the primary keeps the limits. */
    attach(worker: Worker): void {
      attachLedger(worker, ledger);
    },
    /** The settings changed (a reload in force): the plans and the API document are read again. */
    reloaded(): void {
      files = fromFiles(config());
      made = undefined;
    },
    async close(): Promise<void> {
      await redis?.client.close();
    },
  };
}
