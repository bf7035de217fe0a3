import type { Server } from 'node:http';
import type { Server as TlsServer } from 'node:https';
import { limitSendTime } from '@animal-store/http-kit';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import { createRedisRevocations, type RedisRevocations } from './auth/index.js';
import type { GatewayConfig } from './config/index.js';
import { DEPRECATION_NOTES_PATH } from './deprecation/index.js';
import { createDocs } from './docs/index.js';
import { buildEffectiveDocument, DOCUMENT_PATH, withPublicBasePath } from './openapi/index.js';
import { readJsonFile } from './sources/read-json-file.js';
import { createGateway } from './gateway.js';
import { subscribeAccessLog } from './observability/access-log.js';
import { createMetrics } from './observability/metrics.js';
import { createMetricsServer } from './observability/metrics-server.js';
import { createTracing } from './observability/tracing.js';
import { createLinkRewriter } from './http/link-rewrite.js';
import { createUpstream, upstreamPrefix, type Upstream } from './proxy/index.js';
import type { ChannelToPrimary } from './ratelimit/primary/index.js';
import { createRedisClient, observeRedis, redisKeyNames, type RedisClient } from './redis/index.js';
import { apiOperations, type Operation } from './routing/index.js';
import { createAuthentication } from './wiring/authentication.js';
import { notReady, type ReadinessCheck } from './pipeline/steps/service-paths.js';
import { createRateLimitingFromConfig, NO_CEILINGS_ON_CLUSTER } from './wiring/rate-limiting.js';
import { createLedgerWiring } from './wiring/admin-ledger.js';
import { createAdmin, prepareAdmin, unavailableWhenFailing, type AccountBook } from './admin/index.js';
import { redisReadiness } from './wiring/redis-readiness.js';

export interface BuildDeps {
  readonly logger: Logger;
  /** The clock of keys, limits in process and sunsets; tests inject one. */
  readonly now?: () => number;
  /** For tests only: the Redis script's clock too (production uses Redis TIME). */
  readonly redisNow?: () => number;
  /** Set when this gateway is one worker of several (`WORKERS`), run by a primary process. */
  readonly worker?: WorkerDeps | undefined;
}

/** What a worker gets from its primary. */
export interface WorkerDeps {
  /** The worker's id, from 1, as node:cluster numbers them; in its log lines and spans. */
  readonly id: number;
  /** Whether every other worker is ready, asked of the primary: `/readyz` says ready only when all are. */
  readonly othersReady?: ReadinessCheck | undefined;
  /**
   * Its channel to the primary (the worker's `process`), which keeps the limits in process for
   * every worker (`hostLimits`): without Redis every check is the primary's, with Redis the
   * `local` failure policy's share is. Absent, the worker keeps limits of its own.
   */
  readonly limits?: ChannelToPrimary | undefined;
}

export interface BuiltGateway {
  readonly server: Server | TlsServer;
  readonly upstream: Upstream;
  readonly operations: readonly Operation[];
  /** The public base path and the upstream's, as the start line names them (`/` for the root). */
  readonly basePaths: { readonly public: string; readonly upstream: string };
  /** The shared Redis client, when REDIS_URL is set. */
  readonly redis: RedisClient | undefined;
  /** The admin listener of `/metrics`, not yet listening; `undefined` without METRICS_PORT, and in a worker (the primary serves them). */
  readonly metricsServer: Server | undefined;
  /** The metrics of this gateway, when METRICS_PORT is set: a worker hands them to its primary. */
  readonly metricsRegistry: Registry | undefined;
  /**
   * The admin API's book of accounts, where this process keeps the limits (with ADMIN_TOKEN_FILE):
   * a lone worker answers its primary's admin questions from it.
   */
  readonly book: AccountBook | undefined;
  /** This gateway's own readiness (its upstream, Redis): `true`, or the names of what is not ready. */
  readiness(): Promise<true | string[]>;
  /** Closes what the server used, once it stopped taking requests. */
  close(): Promise<void>;
}

/**
 * Every part the configuration describes, wired: the route table, the upstream, Redis, keys and
 * revocations, limits, and the server. Used by `main.ts` and by the tests, so both run the same
 * wiring. Throws with a message naming the setting when a file or value cannot be used.
 */
export function buildGateway(config: GatewayConfig, deps: BuildDeps): BuiltGateway {
  const { logger } = deps;
  const now = deps.now ?? Date.now;
  const { all: operations, basePath } = apiOperations(config.openApiFile, config.publicBasePath);
  // What the API's consumers see: the backend's document plus the gateway's additions. Throws
  // (and the gateway does not start) when the backend's document has a path the gateway answers.
  const docUrl = config.deprecationDocUrl ?? DEPRECATION_NOTES_PATH;
  const backendDocument = readJsonFile(config.openApiFile, z.record(z.string(), z.unknown()), 'OPENAPI_FILE', 'is not a usable OpenAPI document');
  let document: Record<string, unknown>;
  try {
    document = buildEffectiveDocument(backendDocument, { deprecationDocUrl: docUrl });
    if (config.publicBasePath !== undefined) document = withPublicBasePath(document, basePath);
  } catch (error) {
    throw new Error(`OPENAPI_FILE ${config.openApiFile}: ${(error as Error).message}`);
  }
  const docs = createDocs({ document, documentPath: `${basePath}${DOCUMENT_PATH}`, deprecationNotesUrl: docUrl });
  const operationIds = new Set(operations.map((operation) => operation.operationId));
  const plansContext = { operations: operationIds, ...(config.redis?.cluster === true ? { noCeilings: NO_CEILINGS_ON_CLUSTER } : {}) };
  const upstreamBase = upstreamPrefix(config.upstream.url, config.upstream.basePath, basePath);
  const linkRewriter = config.upstream.rewriteLinks
    ? createLinkRewriter({ upstreamOrigin: config.upstream.url.origin, upstreamPrefix: upstreamBase, publicPrefix: basePath })
    : undefined;
  const upstream = createUpstream(config.upstream.engine, { target: config.upstream.url, ...config.upstream, linkRewriter });
  const redis = config.redis === undefined ? undefined : observeRedis(createRedisClient(config.redis.url, config.redis));

  let revocations: RedisRevocations | undefined;
  if (redis !== undefined && config.redis !== undefined && config.auth.mode === 'required') {
    const names = redisKeyNames(config.redis.prefix);
    revocations = createRedisRevocations(redis, {
      key: names.revoked,
      channel: names.revokedChannel,
      later: names.revokedLater,
      // On a Cluster a publisher cannot count who it told: no process vouches for a key there.
      ...(config.redis.cluster ? {} : { acks: names.revokedAcks }),
      batchWindowMs: config.redis.batchWindowMs,
    });
  }
  const source = {};
  const limits = createRateLimitingFromConfig(config.rateLimits, {
    source,
    redis:
      redis === undefined || config.redis === undefined
        ? undefined
        : {
            client: redis,
            prefix: config.redis.prefix,
            batchWindowMs: config.redis.batchWindowMs,
            commandTimeoutMs: config.redis.commandTimeoutMs,
            cluster: config.redis.cluster,
            revocations,
          },
    now,
    ...(deps.redisNow === undefined ? {} : { redisNow: deps.redisNow }),
    primary: deps.worker?.limits,
    operationIds,
  });
  const rateLimiting = limits?.rateLimiting;
  // The admin API's tokens and deny-list, when this process serves its listener (a worker's primary does).
  const adminTokens = deps.worker === undefined && config.metrics !== undefined ? prepareAdmin(config) : undefined;
  // With the admin API on, its ledger is written from this gateway's decisions wherever it serves.
  const ledger =
    config.admin === undefined || limits === undefined
      ? undefined
      : createLedgerWiring(config.rateLimits, {
          limits,
          redis: redis === undefined || config.redis === undefined ? undefined : { client: redis, prefix: config.redis.prefix },
          primary: deps.worker?.limits,
          now,
          recordNow: deps.now,
          source,
        });
  // With limits in Redis, the deny-list is asked in the limit's round trip; otherwise on its own.
  const authentication = createAuthentication(config.auth, {
    now,
    redisRevocations: rateLimiting?.checksRevocation === true ? undefined : revocations,
    adminRevocationsFile: config.admin?.revocationsFile,
  });
  const readiness = redis === undefined ? [] : [redisReadiness(redis, rateLimiting?.warm)];
  // Ready once the deny-list's copy is loaded: before it, a Redis hiccup would refuse every key.
  if (revocations !== undefined) readiness.push({ name: 'revocations copy', ready: async () => revocations.copied() });
  const tracing =
    config.tracing === undefined
      ? undefined
      : createTracing(source, config.tracing, deps.worker === undefined ? {} : { 'gateway.worker.id': deps.worker.id, 'process.pid': process.pid });
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
  const book = ledger?.book;
  const adminSource = book === undefined || redis === undefined ? book : unavailableWhenFailing(book, 'Redis');
  const admin =
    adminTokens === undefined || metrics === undefined
      ? undefined
      : createAdmin({
          config: () => config,
          tokens: () => adminTokens,
          source: () => adminSource,
          redis: () => redis,
          plans: () =>
            limits === undefined ? undefined : { content: limits.plans.content(), version: limits.plans.version(), anonymous: limits.plans.anonymous() },
          plansContext: () => plansContext,
          metrics: () => metrics.registry.getMetricsAsJSON(),
          workers: () => 1,
          logger,
          now,
        });
  const metricsServer = metrics === undefined || deps.worker !== undefined ? undefined : createMetricsServer(metrics.registry, admin);
  const ownChecks: ReadinessCheck[] = [{ name: 'upstream', ready: () => upstream.ready() }, ...readiness];
  const othersReady = deps.worker?.othersReady;
  if (othersReady !== undefined) readiness.push(othersReady);
  const server = createGateway(config, { upstream, operations, readiness, authenticate: authentication?.authenticate, rateLimiting, now, source, docs });
  // A client that stops reading its answer holds a socket only about this long (Node bounds the rest).
  limitSendTime(server as Server, config.server.sendTimeoutMs);
  return {
    server,
    upstream,
    operations,
    basePaths: { public: basePath || '/', upstream: upstreamBase || '/' },
    redis,
    metricsServer,
    metricsRegistry: metrics?.registry,
    book: ledger?.book,
    async readiness() {
      const down = await notReady(ownChecks);
      return down.length === 0 ? true : down;
    },
    async close() {
      unsubscribe();
      ledger?.stop();
      metrics?.stop();
      metricsServer?.closeAllConnections();
      metricsServer?.close();
      // Spans still in the batch are sent before the process goes.
      await tracing?.stop();
      upstream.close();
      authentication?.close();
      revocations?.close();
      await redis?.close();
    },
  };
}
