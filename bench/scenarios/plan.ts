import type { AccountSpread } from '../lib/accounts.js';
import type { Scenario } from '../lib/scenario.js';
import { coreDirect } from './core-direct.js';
import { FASTIFY_STACK, fastifyStack } from './fastify-stack.js';
import { gatewayAuthManyKeysCold, gatewayAuthManyKeysWarm, gatewayAuthOneKey } from './gateway-auth.js';
import { GATEWAY_BARE, gatewayBare, gatewayBareHttpProxy } from './gateway-bare.js';
import {
  GATEWAY_LIMITS_MEMORY,
  GATEWAY_LIMITS_REDIS,
  gatewayAuthRedis,
  gatewayLimitsMemory,
  gatewayLimitsRedis,
  gatewayLimitsRedisControl,
} from './gateway-limits.js';
import { gatewayMetrics, gatewayTracing } from './gateway-observability.js';
import { HAPROXY_JWT, haproxyBare, haproxyJwt } from './haproxy.js';
import { nginxProxyPass } from './nginx.js';
import { latencyCore, latencyGateway, latencyGatewayRedis, rejectionPath } from './rejection-and-latency.js';
import { throughput, type ThroughputScenario } from './throughput.js';
import { GATEWAY_LIMITS_REDIS_TLS, gatewayLimitsRedisTls, HAPROXY_JWT_TLS, haproxyJwtTls } from './tls.js';
import {
  GATEWAY_BARE_WORKERS_2,
  GATEWAY_LIMITS_MEMORY_WORKERS_2,
  GATEWAY_LIMITS_REDIS_WORKERS_2,
  gatewayBareWorkers2,
  gatewayLimitsMemoryWorkers2,
  gatewayLimitsRedisWorkers2,
  haproxyJwtNbthread2,
  HAPROXY_JWT_NBTHREAD_2,
} from './workers.js';

export interface PlanEntry {
  readonly scenario: Scenario;
  /** Run in every round (paired with others), or in the first only. */
  readonly repeat: boolean;
  /**
   * Scenarios compared round by round (the goals of the issues "Every core" and, over TLS, issue
   * 31): the entries of a group sit next to each other, and run in the reverse order every other
   * round, so that neither always runs first, on a cooler machine. With many accounts, the group's
   * name carries the spread's suffix (`redis@2000-uniform`): a group per spread.
   */
  readonly group?: string;
}

/** The groups of the issue "Every core": what `npm run bench -- --workers` runs (with any spread's suffix). */
export const WORKERS_GROUPS: readonly string[] = ['bare', 'memory', 'redis'];

/** Whether `entry` is in one of `groups`, whatever the spread. */
export function inGroups(entry: PlanEntry, groups: readonly string[]): boolean {
  return entry.group !== undefined && groups.includes(entry.group.split('@')[0] as string);
}

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

/**
 * The throughput scenarios measured with many accounts too (issue 40): our bare path, in process,
 * on Redis, with workers and over TLS, and the peers that take keys (HAProxy's stick table per
 * `sub`, the Fastify stack per account), in the groups of the plan above.
 */
const MANY_ACCOUNTS: readonly { scenario: ThroughputScenario; group?: string }[] = [
  { scenario: HAPROXY_JWT },
  { scenario: FASTIFY_STACK },
  { scenario: GATEWAY_BARE, group: 'bare' },
  { scenario: GATEWAY_BARE_WORKERS_2, group: 'bare' },
  { scenario: GATEWAY_LIMITS_MEMORY, group: 'memory' },
  { scenario: GATEWAY_LIMITS_MEMORY_WORKERS_2, group: 'memory' },
  { scenario: GATEWAY_LIMITS_REDIS, group: 'redis' },
  { scenario: GATEWAY_LIMITS_REDIS_WORKERS_2, group: 'redis' },
  { scenario: HAPROXY_JWT_NBTHREAD_2, group: 'redis' },
  { scenario: GATEWAY_LIMITS_REDIS_TLS, group: 'tls' },
  { scenario: HAPROXY_JWT_TLS, group: 'tls' },
];

/** The plan's entries measured with `spread`'s many accounts, repeated every round. */
export function spreadPlan(spread: AccountSpread): PlanEntry[] {
  return MANY_ACCOUNTS.map(({ scenario, group }) => ({
    scenario: throughput(scenario, spread),
    repeat: true,
    ...(group === undefined ? {} : { group: `${group}${spread.suffix}` }),
  }));
}

/**
 * The plan of a run: `PLAN` where one account is measured, then each other spread's entries; only
 * the scenarios whose name (without the spread's suffix) is in `only`, when given.
 */
export function planFor(spreads: readonly AccountSpread[], only?: readonly string[]): PlanEntry[] {
  const entries = spreads.flatMap((spread) => (spread.name === 'one' ? PLAN : spreadPlan(spread)));
  if (only === undefined) return entries;
  for (const name of only) if (!PLAN.some((entry) => entry.scenario.name === name)) throw new Error(`--scenarios: no scenario ${name}`);
  return entries.filter((entry) => only.includes(entry.scenario.name.split('@')[0] as string));
}

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
