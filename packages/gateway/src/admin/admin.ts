import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { GatewayConfig } from '../config/index.js';
import type { PlansVersion } from '../events/index.js';
import type { PlansContext, PlansFile } from '../plans/index.js';
import { anonymousSubject, createMemoryLimiter, minuteAndDay, type Policy } from '../ratelimit/index.js';
import type { RedisClient } from '../redis/index.js';
import { createAdminApi, type AdminHandler } from './admin-api.js';
import type { AccountSource } from './admin-routes.js';
import type { AdminTokens } from './admin-tokens.js';
import { decisionCounts, type DecisionCount } from './decision-counts.js';
import { createRevoker } from './revoker.js';
import { settingsDump } from './settings-dump.js';

/** The plans in force, as the admin API shows and uses them. */
export interface PlansInForce {
  readonly content: PlansFile;
  readonly version: PlansVersion;
  /** The policy of requests without a valid key: what a request without a valid admin token is charged to. */
  readonly anonymous: Policy;
}

export interface AdminOptions {
  /** The settings in force (a reload replaces them). */
  readonly config: () => GatewayConfig;
  readonly tokens: () => AdminTokens;
  /** Where the limits are read now; `undefined` with RATE_LIMITS=off. */
  readonly source: () => AccountSource | undefined;
  /** The shared deny-list's Redis, with `REDIS_URL`. */
  readonly redis: () => RedisClient | undefined;
  /** `undefined` with RATE_LIMITS=off. */
  readonly plans: () => PlansInForce | undefined;
  /** What a candidate plans file is checked against: the API document's operations. */
  readonly plansContext: () => PlansContext;
  /** The gateway's metrics, as prom-client's JSON (every worker's, summed). */
  readonly metrics: () => Promise<readonly { readonly name: string }[]>;
  /** Workers serving now. */
  readonly workers: () => number;
  /** The audit log's. */
  readonly logger: Logger;
  /** Where the admin API's own metrics go (`gateway_admin_auth_failures_total`): the primary's registry. */
  readonly registry?: Registry;
  readonly now?: () => number;
}

/** For requests without a valid admin token when the gateway keeps no plans (RATE_LIMITS=off): the shipped plans' anonymous limit. */
const NO_PLANS_ANONYMOUS: Policy = { ...minuteAndDay('anonymous', 30, 1000), anonymous: true };

/**
 * The admin API and console of a gateway, wired from what the process that serves the admin
 * listener has (the primary, or a gateway of one process in the tests): the answer to `/admin`
 * requests, for `createMetricsServer`. Failed tokens are counted in this process, per address,
 * under the plans' anonymous limit.
 */
export function createAdmin(options: AdminOptions): AdminHandler {
  const now = options.now ?? Date.now;
  const first = options.config();
  const failures = createMemoryLimiter({ now, ...(first.rateLimits.mode === 'on' ? { maxAddresses: first.rateLimits.maxAddresses } : {}) });
  let made: { readonly config: GatewayConfig; readonly revoker: ReturnType<typeof createRevoker> } | undefined;
  /** The revoker of the settings in force, made again when a reload replaced them. */
  const revoker = () => {
    const config = options.config();
    if (made?.config === config) return made.revoker;
    const readFiles = [config.auth.mode === 'off' ? undefined : config.auth.revocationsFile, config.admin?.revocationsFile].filter(
      (file): file is string => file !== undefined,
    );
    const revoker = createRevoker({
      keysChecked: config.auth.mode !== 'off',
      file: config.admin?.revocationsFile,
      readFiles: [...new Set(readFiles)],
      redis: config.redis === undefined ? undefined : { client: options.redis() as RedisClient, prefix: config.redis.prefix, cluster: config.redis.cluster },
      now,
    });
    made = { config, revoker };
    return revoker;
  };
  const failuresCount = new Counter({
    name: 'gateway_admin_auth_failures_total',
    help: 'Admin API requests refused for their token: none sent (missing) or not one of ADMIN_TOKEN_FILE (invalid).',
    labelNames: ['reason'] as const,
    registers: options.registry === undefined ? [] : [options.registry],
  });
  // Both series from the start: an alert on their rate needs no series to appear first.
  for (const reason of ['missing', 'invalid'] as const) failuresCount.inc({ reason }, 0);
  return createAdminApi({
    tokens: options.tokens,
    refused(ip, reason, status) {
      failuresCount.inc({ reason });
      // What was sent is never logged: a near miss of a real token is half a secret.
      options.logger.warn({ ip, reason, status }, 'admin token refused');
    },
    source: options.source,
    revoke: (keyId) => revoker().revoke(keyId),
    revocations: (keyIds) => revoker().revocations(keyIds),
    settings: () => {
      const plans = options.plans();
      return settingsDump(options.config(), {
        workers: options.workers(),
        plans: plans === undefined ? undefined : { content: plans.content, version: plans.version },
      });
    },
    decisions: async (): Promise<DecisionCount[]> => decisionCounts((await options.metrics()) as Parameters<typeof decisionCounts>[0]),
    plansContext: options.plansContext,
    charge: (ip) => failures.check({ subject: anonymousSubject(ip), keyId: undefined, policy: options.plans()?.anonymous ?? NO_PLANS_ANONYMOUS }),
    trustProxy: () => options.config().trustProxy,
    logger: options.logger,
    now,
  });
}
