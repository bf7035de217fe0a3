import { bufferedStdout, exitWithProblems, nodeSupport, serve } from '@animal-store/http-kit';
import { pino } from 'pino';
import { buildGateway, type BuiltGateway } from './build-gateway.js';
import { loadConfigFromEnv } from './config/index.js';

// Wiring only: config, parts, listen, signals. The behaviour lives in the parts.
const result = loadConfigFromEnv();
if (!result.ok) exitWithProblems('gateway', result.problems);
const { config } = result;
const logger = pino({ name: 'gateway', level: config.logLevel }, bufferedStdout());
const node = nodeSupport(process.version);
if (!node.supported) logger.warn({ nodeVersion: process.version }, node.message);
let gateway: BuiltGateway;
try {
  gateway = buildGateway(config, { logger });
} catch (error) {
  exitWithProblems('gateway', [(error as Error).message]);
}
if (config.auth.mode === 'off') logger.warn('AUTH=off: requests are forwarded without checking API keys');
if (config.rateLimits.mode === 'off') logger.warn('RATE_LIMITS=off: no request is limited');

const { metricsServer } = gateway;
if (metricsServer !== undefined && config.metrics !== undefined) {
  const { host, port } = config.metrics;
  metricsServer.on('error', (error) => exitWithProblems('gateway', [`METRICS_PORT: cannot listen on ${host}:${port}: ${error.message}`]));
  metricsServer.listen(port, host, () => {
    const address = metricsServer.address();
    logger.info({ metricsUrl: `http://${host}:${typeof address === 'object' && address !== null ? address.port : port}/metrics` }, 'metrics listening');
  });
}

serve(gateway.server, {
  name: 'gateway',
  host: config.host,
  port: config.port,
  logger,
  shutdownTimeoutMs: config.shutdownTimeoutMs,
  scheme: config.tls === undefined ? 'http' : 'https',
  details: {
    upstream: config.upstream.url.href,
    // The prefixes in effect, so the paths the backend gets are seen without working out the settings.
    publicBasePath: gateway.basePaths.public,
    upstreamBasePath: gateway.basePaths.upstream,
    operations: gateway.operations.length,
  },
  onDrained: () => gateway.close(),
});
