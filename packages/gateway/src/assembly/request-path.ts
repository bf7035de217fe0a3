import type { Server } from 'node:http';
import type { Server as TlsServer } from 'node:https';
import { limitSendTime } from '@animal-store/http-kit';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createRedisRevocations, type RedisRevocations } from '../auth/index.js';
import type { AccountBook } from '../admin/index.js';
import type { GatewayConfig } from '../config/index.js';
import { createGateway } from '../gateway.js';
import type { Port } from '../ipc/index.js';
import { subscribeAccessLog } from '../observability/access-log.js';
import { createMetrics } from '../observability/metrics.js';
import { createTracing } from '../observability/tracing.js';
import { notReady, type OthersReadiness, type ReadinessCheck } from '../pipeline/steps/service-paths.js';
import type { Upstream } from '../proxy/index.js';
import type { RedisViews } from '../ratelimit/index.js';
import { createRedisClient, observeRedis, redisKeyNames, type RedisClient } from '../redis/index.js';
import type { Operation } from '../routing/index.js';
import { createAuthentication } from './authentication.js';
import { apiOfConfig } from './api.js';
import { assembleWorkerLedger } from './ledger.js';
import { assembleLimits, plansContextOf, type LimitsRedis } from './limits.js';
import type { Placement } from './placement.js';
import { redisReadiness } from './redis-readiness.js';

export interface RequestPathDeps {
  readonly logger: Logger;
  readonly placement: Placement;
  /** The worker's port to its primary. */
  readonly port: Port;
  /** The worker's id, from 1 (in its spans). */
  readonly workerId: number;
  /** The clock of keys, limits in process and sunsets; tests inject one. */
  readonly now?: (() => number) | undefined;
  /** For tests only: the Redis script's clock too (production uses Redis TIME). */
  readonly redisNow?: (() => number) | undefined;
  /** What else `/readyz` waits for: the other workers, asked of the primary. */
  readonly othersReady?: OthersReadiness | undefined;
}

/** A worker's request path, not yet listening. */
export interface RequestPath {
  readonly server: Server | TlsServer;
  readonly upstream: Upstream;
  readonly operations: readonly Operation[];
  /** The public base path and the upstream's, as the start line names them (`/` for the root). */
  readonly basePaths: { readonly public: string; readonly upstream: string };
  /** The shared Redis client, when REDIS_URL is set. */
  readonly redis: RedisClient | undefined;
  /** This worker's metrics (with METRICS_PORT), which its primary sums with the others'. */
  readonly metricsRegistry: Registry | undefined;
  /** The admin API's book, where this worker keeps the limits and the ledger (see `Placement.ledger`). */
  readonly book: AccountBook | undefined;
  /** What Redis said last of each account as this worker saw it, with the `local` policy (see `Limits.redisViews`). */
  readonly redisViews: RedisViews | undefined;
  /** This worker's own readiness (its upstream, Redis): `true`, or the names of what is not ready. */
  readiness(): Promise<true | string[]>;
  /** Closes what the server used, once it stopped taking requests. */
  close(): Promise<void>;
}

/**
 * Every part of a worker that the configuration describes, wired: the route table, the upstream,
 * Redis, keys and revocations, the limits where the placement keeps them, observability, and the
 * server. Throws with a message naming the setting when a file or value cannot be used.
 */
export function assembleRequestPath(config: GatewayConfig, deps: RequestPathDeps): RequestPath {
  const { logger, placement, port } = deps;
  const now = deps.now ?? Date.now;
  const api = apiOfConfig(config);
  const { upstream, operations } = api;
  const redis = config.redis === undefined ? undefined : observeRedis(createRedisClient(config.redis.url, config.redis));
  const revocations = redisRevocationsOf(config, redis);
  const source = {};
  const limitsRedis: LimitsRedis | undefined =
    redis === undefined || config.redis === undefined
      ? undefined
      : { client: redis, prefix: config.redis.prefix, batchWindowMs: config.redis.batchWindowMs, commandTimeoutMs: config.redis.commandTimeoutMs, revocations };
  const context = plansContextOf(config, new Set(operations.map((operation) => operation.operationId)));
  const limits = assembleLimits(config.rateLimits, { placement, port, redis: limitsRedis, now, redisNow: deps.redisNow, context, source });
  const rateLimiting = limits?.rateLimiting;
  const ledger = assembleWorkerLedger(config.rateLimits, limits, { placement, port, redis: limitsRedis, now, recordNow: deps.now, source });
  // With limits in Redis, the deny-list is asked in the limit's round trip; otherwise on its own.
  const authentication = createAuthentication(config.auth, {
    now,
    redisRevocations: rateLimiting?.checksRevocation === true ? undefined : revocations,
    adminRevocationsFile: config.admin?.revocationsFile,
  });
  const readiness: ReadinessCheck[] = redis === undefined ? [] : [redisReadiness(redis, rateLimiting?.warm)];
  // Ready once the deny-list's copy is loaded: before it, a Redis hiccup would refuse every key.
  if (revocations !== undefined) readiness.push({ name: 'revocations copy', ready: async () => revocations.copied() });
  const tracing =
    config.tracing === undefined ? undefined : createTracing(source, config.tracing, { 'gateway.worker.id': deps.workerId, 'process.pid': process.pid });
  const unsubscribe = subscribeAccessLog(logger, source);
  const metrics =
    config.metrics === undefined
      ? undefined
      : createMetrics(source, {
          upstreamUp: () => upstream.ready(),
          redisUp:
            redis === undefined
              ? undefined
              : () =>
                  redis.ping().then(
                    () => true,
                    () => false,
                  ),
          plansVersion: rateLimiting?.plansVersion,
        });
  const ownChecks: ReadinessCheck[] = [{ name: 'upstream', ready: () => upstream.ready() }, ...readiness];
  const server = createGateway(config, {
    upstream,
    operations,
    readiness,
    othersReady: deps.othersReady,
    authenticate: authentication?.authenticate,
    rateLimiting,
    now,
    source,
    docs: api.docs,
  });
  // A client that stops reading its answer holds a socket only about this long (Node bounds the rest).
  limitSendTime(server as Server, config.server.sendTimeoutMs);
  return {
    server,
    upstream,
    operations,
    basePaths: api.basePaths,
    redis,
    metricsRegistry: metrics?.registry,
    book: ledger?.book,
    redisViews: limits?.redisViews,
    async readiness() {
      const down = await notReady(ownChecks);
      return down.length === 0 ? true : down;
    },
    async close() {
      unsubscribe();
      ledger?.stop();
      metrics?.stop();
      // Spans still in the batch are sent before the process goes.
      await tracing?.stop();
      upstream.close();
      authentication?.close();
      revocations?.close();
      await redis?.close();
    },
  };
}

/** The Redis deny-list's copy, with keys checked and REDIS_URL set. */
function redisRevocationsOf(config: GatewayConfig, redis: RedisClient | undefined): RedisRevocations | undefined {
  if (redis === undefined || config.redis === undefined || config.auth.mode !== 'required') return undefined;
  const names = redisKeyNames(config.redis.prefix);
  return createRedisRevocations(redis, {
    key: names.revoked,
    channel: names.revokedChannel,
    later: names.revokedLater,
    // On a Cluster a publisher cannot count who it told: no process vouches for a key there.
    ...(config.redis.cluster ? {} : { acks: names.revokedAcks }),
    batchWindowMs: config.redis.batchWindowMs,
  });
}
