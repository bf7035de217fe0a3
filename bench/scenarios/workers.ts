import { throughput, type ThroughputScenario } from './throughput.js';

/*
 * The goals of the issue "Every core": the same gateways as gateway-bare, gateway-limits-memory and
 * gateway-limits-redis (which run with WORKERS=1), with WORKERS=2, and HAProxy's jwt_verify + stick
 * table with nbthread 2. Each runs in the same round as its one-worker twin, next to it, the two in
 * turn first (lib/run-plan.ts), so the report can take the median of the per-round ratios.
 */

export const GATEWAY_BARE_WORKERS_2: ThroughputScenario = {
  name: 'gateway-bare-workers-2',
  description: 'gateway-bare with WORKERS=2: CPU per request summed over every process of the gateway (its primary and workers)',
  service: ({ bareWorkers2 }) => bareWorkers2,
  key: 'none',
};

export const GATEWAY_LIMITS_MEMORY_WORKERS_2: ThroughputScenario = {
  name: 'gateway-limits-memory-workers-2',
  description: 'gateway-limits-memory with WORKERS=2: keys, limits in process shared by the workers (never reached)',
  service: ({ limitsMemoryWorkers2 }) => limitsMemoryWorkers2,
  key: 'gateway',
};

export const GATEWAY_LIMITS_REDIS_WORKERS_2: ThroughputScenario = {
  name: 'gateway-limits-redis-workers-2',
  description: 'gateway-limits-redis with WORKERS=2: keys, revocations and limits in Redis (never reached)',
  service: ({ limitsRedisWorkers2 }) => limitsRedisWorkers2,
  key: 'gateway',
  needsRedis: true,
};

export const HAPROXY_JWT_NBTHREAD_2: ThroughputScenario = {
  name: 'haproxy-jwt-stick-table-nbthread-2',
  description: 'haproxy-jwt-stick-table with nbthread 2 (one stick table for both threads): the reference of a gateway with two workers',
  service: ({ haproxyJwt2 }) => haproxyJwt2,
  key: 'haproxy',
  needsHaproxy: true,
  reference: true,
};

export const gatewayBareWorkers2 = throughput(GATEWAY_BARE_WORKERS_2);
export const gatewayLimitsMemoryWorkers2 = throughput(GATEWAY_LIMITS_MEMORY_WORKERS_2);
export const gatewayLimitsRedisWorkers2 = throughput(GATEWAY_LIMITS_REDIS_WORKERS_2);
export const haproxyJwtNbthread2 = throughput(HAPROXY_JWT_NBTHREAD_2);
