import { drain } from '@animal-store/http-kit';
import { pino } from 'pino';
import { loadConfig } from './config/index.js';
import { createGateway } from './gateway.js';
import { createAuthentication } from './auth/index.js';
import { createHttpProxyUpstream } from './proxy/index.js';
import { createRateLimitingFromConfig } from './ratelimit/index.js';
import { createRedisClient } from './redis/index.js';
import { loadOperations } from './routing/index.js';

// Wiring only: config, parts, listen, signals. The behaviour lives in the parts.
const result = loadConfig(process.env);
if (!result.ok) {
  process.stderr.write(`gateway: invalid configuration\n${result.problems.map((p) => `  - ${p}\n`).join('')}`);
  process.exit(2);
}
const { config } = result;
let operations;
try {
  operations = loadOperations(config.openApiFile);
} catch (error) {
  process.stderr.write(`gateway: invalid configuration\n  - ${(error as Error).message}\n`);
  process.exit(2);
}
const logger = pino({ name: 'gateway', level: config.logLevel });
const upstream = createHttpProxyUpstream({ target: config.upstream.url, ...config.upstream });
const redis = config.redis === undefined ? undefined : createRedisClient(config.redis.url, config.redis);
let lastDegradedLog = 0;
const authentication = createAuthentication(config.auth, {
  now: Date.now,
  redis: redis === undefined || config.redis === undefined ? undefined : { client: redis, prefix: config.redis.prefix },
  onDegraded: (error) => {
    // At most one line a second while Redis is away; requests are answered from the local copy.
    if (Date.now() - lastDegradedLog < 1000) return;
    lastDegradedLog = Date.now();
    logger.warn({ err: error }, 'revocation check degraded: Redis did not answer, using the last copy');
  },
});
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
  process.stderr.write(`gateway: invalid configuration\n  - ${(error as Error).message}\n`);
  process.exit(2);
}
if (rateLimiting === undefined) logger.warn('RATE_LIMITS=off: no request is limited');
const readiness = redis === undefined ? [] : [{ name: 'redis', ready: () => redis.ping().then(() => true, () => false) }];
const server = createGateway(config, { logger, upstream, operations, readiness, authenticate: authentication?.authenticate, rateLimiting });

server.on('error', (error) => {
  // Listening failed (port taken, address not available): say so plainly and stop.
  logger.fatal({ err: error }, `gateway cannot listen on ${config.host}:${config.port}`);
  process.exit(1);
});
server.listen(config.port, config.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  logger.info({ url: `http://${config.host}:${port}`, upstream: config.upstream.url.href, operations: operations.length }, 'gateway listening');
});

let stopping = false;
function shutdown(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'gateway draining');
  void drain(server, config.shutdownTimeoutMs).then(async () => {
    upstream.close();
    authentication?.close();
    await redis?.close();
    logger.info('gateway stopped');
    process.exit(0);
  });
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
