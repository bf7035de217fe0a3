import { runLoad } from '../lib/load.js';
import type { BenchContext, LoadTarget, Scenario } from '../lib/scenario.js';
import type { Service } from '../lib/services.js';

/*
 * The goals of the issue "Every core": the same gateways as gateway-bare, gateway-limits-memory and
 * gateway-limits-redis (which run with WORKERS=1), with WORKERS=2, and HAProxy's jwt_verify + stick
 * table with nbthread 2. Each runs in the same round as its one-worker twin, next to it, the two in
 * turn first (lib/run-plan.ts), so the report can take the median of the per-round ratios.
 */

const bearer = ({ oneKey }: BenchContext) => ({ authorization: `Bearer ${oneKey}` });

/** A throughput scenario on `service`, with the bench key unless `keyless`. */
function twin(name: string, description: string, service: (context: BenchContext) => Service | undefined, keyless = false): Scenario {
  const target = (context: BenchContext): LoadTarget => ({
    url: `${service(context)?.url}/v1/pets`,
    ...(keyless ? {} : { headers: bearer(context) }),
  });
  return {
    name,
    description,
    expectStatuses: [200],
    run: (context) => runLoad({ ...target(context), settings: context.settings }),
    proxy: service,
    wrk: target,
  };
}

export const gatewayBareWorkers2: Scenario = twin(
  'gateway-bare-workers-2',
  'gateway-bare with WORKERS=2: CPU per request summed over every process of the gateway (its primary and workers)',
  ({ bareWorkers2 }) => bareWorkers2,
  true,
);

export const gatewayLimitsMemoryWorkers2: Scenario = twin(
  'gateway-limits-memory-workers-2',
  'gateway-limits-memory with WORKERS=2: one key, limits in process shared by the workers (never reached)',
  ({ limitsMemoryWorkers2 }) => limitsMemoryWorkers2,
);

export const gatewayLimitsRedisWorkers2: Scenario = {
  ...twin(
    'gateway-limits-redis-workers-2',
    'gateway-limits-redis with WORKERS=2: one key, revocations and limits in Redis (never reached)',
    ({ limitsRedisWorkers2 }) => limitsRedisWorkers2,
  ),
  needsRedis: true,
};

export const haproxyJwtNbthread2: Scenario = {
  name: 'haproxy-jwt-stick-table-nbthread-2',
  description: 'haproxy-jwt-stick-table with nbthread 2 (one stick table for both threads): the reference of a gateway with two workers',
  expectStatuses: [200],
  needsHaproxy: true,
  reference: true,
  run: (context) => runLoad({ ...jwtTarget(context), settings: context.settings }),
  proxy: ({ haproxyJwt2 }) => haproxyJwt2,
  wrk: jwtTarget,
};

function jwtTarget({ haproxyJwt2, haproxyKey }: BenchContext): LoadTarget {
  return { url: `${haproxyJwt2?.url}/v1/pets`, headers: { authorization: `Bearer ${haproxyKey}` } };
}
