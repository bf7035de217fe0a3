import { runLoad } from '../lib/load.js';
import type { Scenario } from '../lib/scenario.js';
import { throughput, type ThroughputScenario } from './throughput.js';

export const GATEWAY_LIMITS_MEMORY: ThroughputScenario = {
  name: 'gateway-limits-memory',
  description: 'the full pipeline: keys, limits in process (never refusing)',
  service: ({ limitsMemory }) => limitsMemory,
  key: 'gateway',
};

export const GATEWAY_LIMITS_REDIS: ThroughputScenario = {
  name: 'gateway-limits-redis',
  description:
    'the full pipeline: keys, revocations and limits in Redis (requests share script calls; a busy account of a large plan is answered from a lease)',
  service: ({ limitsRedis }) => limitsRedis,
  key: 'gateway',
  needsRedis: true,
};

export const GATEWAY_LIMITS_REDIS_CONTROL: ThroughputScenario = {
  name: 'gateway-limits-redis-control',
  description:
    "a second gateway configured as gateway-limits-redis: its ratio to it is the noise of one process measured after another (and it warms up as the paired measurement's control)",
  service: ({ limitsRedisControl }) => limitsRedisControl,
  key: 'gateway',
  needsRedis: true,
};

export const gatewayLimitsMemory = throughput(GATEWAY_LIMITS_MEMORY);
export const gatewayLimitsRedis = throughput(GATEWAY_LIMITS_REDIS);
export const gatewayLimitsRedisControl = throughput(GATEWAY_LIMITS_REDIS_CONTROL);

export const gatewayAuthRedis: Scenario = {
  name: 'gateway-auth-redis',
  description: 'keys with revocations checked in Redis, limits off: the baseline for limits in Redis',
  expectStatuses: [200],
  needsRedis: true,
  run: ({ authRedis, oneKey, settings }) => runLoad({ url: `${authRedis?.url}/v1/pets`, settings, headers: { authorization: `Bearer ${oneKey}` } }),
  proxy: ({ authRedis }) => authRedis,
};
