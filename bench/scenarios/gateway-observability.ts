import { whileScraped } from '../lib/observability.js';
import { throughput, type ThroughputScenario } from './throughput.js';

export const GATEWAY_METRICS: ThroughputScenario = {
  name: 'gateway-limits-redis-metrics',
  description: 'the full pipeline on Redis (as gateway-limits-redis) with Prometheus metrics on, /metrics scraped every second',
  service: ({ observed }) => observed?.metrics,
  key: 'gateway',
  needsRedis: true,
  whileLoaded: (context, load) => whileScraped(context.observed?.metricsUrl as string, load),
};

export const GATEWAY_TRACING: ThroughputScenario = {
  name: 'gateway-limits-redis-tracing',
  description: 'the full pipeline on Redis with every request traced (4 spans) and exported over OTLP/HTTP to a local sink',
  service: ({ observed }) => observed?.tracing,
  key: 'gateway',
  needsRedis: true,
};

export const gatewayMetrics = throughput(GATEWAY_METRICS);
export const gatewayTracing = throughput(GATEWAY_TRACING);
