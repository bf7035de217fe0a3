import type { Scenario } from '../lib/scenario.js';
import { coreDirect } from './core-direct.js';
import { fastifyStack } from './fastify-stack.js';
import { gatewayAuthManyKeysCold, gatewayAuthManyKeysWarm, gatewayAuthOneKey } from './gateway-auth.js';
import { gatewayBare, gatewayBareHttpProxy } from './gateway-bare.js';
import { gatewayAuthRedis, gatewayLimitsMemory, gatewayLimitsRedis, gatewayLimitsRedisControl } from './gateway-limits.js';
import { gatewayMetrics, gatewayTracing } from './gateway-observability.js';
import { haproxyBare, haproxyJwt } from './haproxy.js';
import { nginxProxyPass } from './nginx.js';
import { latencyCore, latencyGateway, latencyGatewayRedis, rejectionPath } from './rejection-and-latency.js';
import { gatewayLimitsRedisTls, haproxyJwtTls } from './tls.js';
import { gatewayBareWorkers2, gatewayLimitsMemoryWorkers2, gatewayLimitsRedisWorkers2, haproxyJwtNbthread2 } from './workers.js';

export interface PlanEntry {
  readonly scenario: Scenario;
  /** Run in every round (paired with others), or in the first only. */
  readonly repeat: boolean;
  /**
   * Scenarios compared round by round (the goals of the issues "Every core" and, over TLS, issue
   * 31): the entries of a group sit next to each other, and run in the reverse order every other
   * round, so that neither always runs first, on a cooler machine.
   */
  readonly group?: 'bare' | 'memory' | 'redis' | 'tls';
}

/** The groups of the issue "Every core": what `npm run bench -- --workers` runs. */
export const WORKERS_GROUPS: readonly NonNullable<PlanEntry['group']>[] = ['bare', 'memory', 'redis'];

/** Paired scenarios run alternately, `rounds` times, so drift on the machine hits both alike. */
export const PLAN: readonly PlanEntry[] = [
  { scenario: coreDirect, repeat: false },
  { scenario: nginxProxyPass, repeat: true },
  { scenario: haproxyBare, repeat: true },
  { scenario: haproxyJwt, repeat: true },
  { scenario: fastifyStack, repeat: true },
  { scenario: gatewayBare, repeat: true, group: 'bare' },
  { scenario: gatewayBareWorkers2, repeat: true, group: 'bare' },
  { scenario: gatewayBareHttpProxy, repeat: true },
  { scenario: gatewayAuthOneKey, repeat: true },
  { scenario: gatewayLimitsMemory, repeat: true, group: 'memory' },
  { scenario: gatewayLimitsMemoryWorkers2, repeat: true, group: 'memory' },
  { scenario: gatewayAuthRedis, repeat: true },
  { scenario: gatewayLimitsRedis, repeat: true, group: 'redis' },
  { scenario: gatewayLimitsRedisWorkers2, repeat: true, group: 'redis' },
  { scenario: haproxyJwtNbthread2, repeat: true, group: 'redis' },
  { scenario: gatewayLimitsRedisTls, repeat: true, group: 'tls' },
  { scenario: haproxyJwtTls, repeat: true, group: 'tls' },
  { scenario: gatewayMetrics, repeat: true },
  { scenario: gatewayTracing, repeat: true },
  { scenario: gatewayLimitsRedisControl, repeat: true },
  { scenario: gatewayAuthManyKeysCold, repeat: false },
  { scenario: gatewayAuthManyKeysWarm, repeat: true },
  { scenario: rejectionPath, repeat: true },
  { scenario: latencyCore, repeat: true },
  { scenario: latencyGateway, repeat: true },
  { scenario: latencyGatewayRedis, repeat: true },
];

/** The plan's scenarios for `round` (from 1), in order: those not repeated in the first only, each group reversed in even rounds. */
export function roundOrder(plan: readonly PlanEntry[], round: number): PlanEntry[] {
  const entries = plan.filter((entry) => entry.repeat || round === 1);
  if (round % 2 === 1) return entries;
  const ordered: PlanEntry[] = [];
  for (let i = 0; i < entries.length;) {
    const group = entries[i]?.group;
    let end = i + 1;
    while (group !== undefined && end < entries.length && entries[end]?.group === group) end++;
    ordered.push(...entries.slice(i, end).reverse());
    i = end;
  }
  return ordered;
}
