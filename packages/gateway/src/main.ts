import { exitWithProblems, serve } from '@animal-store/http-kit';
import { pino } from 'pino';
import { loadConfigFromEnv } from './config/index.js';
import { createGateway } from './gateway.js';
import { createAuthentication } from './auth/index.js';
import { createUpstream } from './proxy/index.js';
import { createRateLimitingFromConfig } from './ratelimit/index.js';
import { createRedisClient } from './redis/index.js';
import { loadOperations } from './routing/index.js';

// Wiring only: config, parts, listen, signals. The behaviour lives in the parts.
const result = loadConfigFromEnv();
if (!result.ok) exitWithProblems('gateway', result.problems);
const { config } = result;
let operations;
try {
  operations = loadOperations(config.openApiFile, { basePath: config.publicBasePath });
} catch (error) {
  exitWithProblems('gateway', [(error as Error).message]);
}
const logger = pino({ name: 'gateway', level: config.logLevel });
const upstream = createUpstream(config.upstream.engine, { target: config.upstream.url, ...config.upstream });
const redis = config.redis === undefined ? undefined : createRedisClient(config.redis.url, config.redis);
let lastDegradedLog = 0;
let authentication;
try {
  authentication = createAuthentication(config.auth, {
    now: Date.now,
    redis: redis === undefined || config.redis === undefined ? undefined : { client: redis, prefix: config.redis.prefix },
    onDegraded: (error) => {
      // At most one line a second while Redis is away; requests are answered from the local copy.
      if (Date.now() - lastDegradedLog < 1000) return;
      lastDegradedLog = Date.now();
      logger.warn({ err: error }, 'revocation check degraded: Redis did not answer, using the last copy');
    },
  });
} catch (error) {
  exitWithProblems('gateway', [(error as Error).message]);
}
if (authentication === undefined) logger.warn('AUTH=off: requests are forwarded without checking API keys');
let lastLimiterLog = 0;
let rateLimiting;
try {
  rateLimiting = createRateLimitingFromConfig(config.rateLimits, {
    redis: redis === undefined || config.redis === undefined ? undefined : { client: redis, prefix: config.redis.prefix },
    onDegraded: (error) => {
      if (Date.now() - lastLimiterLog < 1000) return;
      lastLimiterLog = Date.now();
      logger.warn({ err: error, policy: config.rateLimits.mode === 'on' ? config.rateLimits.onRedisFailure : 'off' }, 'rate limits degraded: Redis did not answer in time');
    },
    onInvalidPlans: (error) => logger.error({ err: error }, 'PLANS_FILE became invalid; keeping the last good plans'),
  });
} catch (error) {
  exitWithProblems('gateway', [(error as Error).message]);
}
if (rateLimiting === undefined) logger.warn('RATE_LIMITS=off: no request is limited');
const readiness = redis === undefined ? [] : [{ name: 'redis', ready: () => redis.ping().then(() => true, () => false) }];
let server;
try {
  server = createGateway(config, { logger, upstream, operations, readiness, authenticate: authentication?.authenticate, rateLimiting });
} catch (error) {
  exitWithProblems('gateway', [(error as Error).message]);
}

serve(server, {
  name: 'gateway',
  host: config.host,
  port: config.port,
  logger,
  shutdownTimeoutMs: config.shutdownTimeoutMs,
  scheme: config.tls === undefined ? 'http' : 'https',
  details: { upstream: config.upstream.url.href, operations: operations.length },
  onDrained: async () => {
    upstream.close();
    authentication?.close();
    await redis?.close();
  },
});
