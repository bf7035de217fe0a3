import { runLoad } from '../lib/load.js';
import { whileScraped } from '../lib/observability.js';
import type { BenchContext, LoadTarget, Scenario } from '../lib/scenario.js';

const metricsTarget = ({ observed, oneKey }: BenchContext): LoadTarget => ({
  url: `${observed?.metrics.url}/v1/pets`,
  headers: { authorization: `Bearer ${oneKey}` },
});
const tracingTarget = ({ observed, oneKey }: BenchContext): LoadTarget => ({
  url: `${observed?.tracing.url}/v1/pets`,
  headers: { authorization: `Bearer ${oneKey}` },
});

export const gatewayMetrics: Scenario = {
  name: 'gateway-limits-redis-metrics',
  description: 'the full pipeline on Redis (as gateway-limits-redis) with Prometheus metrics on, /metrics scraped every second',
  expectStatuses: [200],
  needsRedis: true,
  run: (context) => whileScraped(context.observed?.metricsUrl as string, () => runLoad({ ...metricsTarget(context), settings: context.settings })),
  proxy: ({ observed }) => observed?.metrics,
  wrk: metricsTarget,
};

export const gatewayTracing: Scenario = {
  name: 'gateway-limits-redis-tracing',
  description: 'the full pipeline on Redis with every request traced (4 spans) and exported over OTLP/HTTP to a local sink',
  expectStatuses: [200],
  needsRedis: true,
  run: (context) => runLoad({ ...tracingTarget(context), settings: context.settings }),
  proxy: ({ observed }) => observed?.tracing,
  wrk: tracingTarget,
};
