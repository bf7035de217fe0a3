import { runLoad } from '../lib/load.js';
import type { BenchContext, LoadTarget, Scenario } from '../lib/scenario.js';

const memoryTarget = ({ limitsMemory, oneKey }: BenchContext): LoadTarget => ({
  url: `${limitsMemory.url}/v1/pets`,
  headers: { authorization: `Bearer ${oneKey}` },
});
const redisTarget = ({ limitsRedis, oneKey }: BenchContext): LoadTarget => ({
  url: `${limitsRedis?.url}/v1/pets`,
  headers: { authorization: `Bearer ${oneKey}` },
});
const controlTarget = ({ limitsRedisControl, oneKey }: BenchContext): LoadTarget => ({
  url: `${limitsRedisControl?.url}/v1/pets`,
  headers: { authorization: `Bearer ${oneKey}` },
});

export const gatewayLimitsMemory: Scenario = {
  name: 'gateway-limits-memory',
  description: 'the full pipeline: one key, limits in process (high enough never to refuse)',
  expectStatuses: [200],
  run: (context) => runLoad({ ...memoryTarget(context), settings: context.settings }),
  proxy: ({ limitsMemory }) => limitsMemory,
  wrk: memoryTarget,
};

export const gatewayAuthRedis: Scenario = {
  name: 'gateway-auth-redis',
  description: 'keys with revocations checked in Redis, limits off: the baseline for limits in Redis',
  expectStatuses: [200],
  needsRedis: true,
  run: ({ authRedis, oneKey, settings }) => runLoad({ url: `${authRedis?.url}/v1/pets`, settings, headers: { authorization: `Bearer ${oneKey}` } }),
  proxy: ({ authRedis }) => authRedis,
};

export const gatewayLimitsRedis: Scenario = {
  name: 'gateway-limits-redis',
  description: 'the full pipeline: one key, revocations and limits in Redis (requests share script calls, and a busy account is answered from a lease)',
  expectStatuses: [200],
  needsRedis: true,
  run: (context) => runLoad({ ...redisTarget(context), settings: context.settings }),
  proxy: ({ limitsRedis }) => limitsRedis,
  wrk: redisTarget,
};

export const gatewayLimitsRedisControl: Scenario = {
  name: 'gateway-limits-redis-control',
  description:
    "a second gateway configured as gateway-limits-redis: its ratio to it is the noise of one process measured after another (and it warms up as the paired measurement's control)",
  expectStatuses: [200],
  needsRedis: true,
  run: (context) => runLoad({ ...controlTarget(context), settings: context.settings }),
  proxy: ({ limitsRedisControl }) => limitsRedisControl,
  wrk: controlTarget,
};
