import { median } from './paired-summary.js';
import type { RedisStats } from './script-calls.js';

/*
 * `npm run bench:redis` (issue 40 §5): what one Redis core serves. For each Redis (standalone, or
 * a Cluster's masters summed) and each spread of accounts, rounds of load on the full pipeline,
 * Redis's own counters and the gateway's CPU read around each. From them, the gateway requests a
 * second one Redis core serves, and the Redis cores a gateway core needs.
 */

/** One round: what the load answered, what Redis did (summed over its nodes, and each node's CPU), what the gateway used. */
export interface CapacityRound {
  readonly requests: number;
  readonly rps: number;
  readonly redis: RedisStats;
  /** Each node's CPU µs during the round (one entry for a standalone Redis). */
  readonly nodeCpuUsec: readonly number[];
  readonly gatewayCpuMs: number;
  /** Answers other than 2xx/3xx, and socket errors. */
  readonly failed: number;
}

export interface CapacityCase {
  readonly redis: 'standalone' | 'cluster';
  readonly nodes: number;
  readonly spread: string;
  readonly rounds: readonly CapacityRound[];
}

/** A case's figures: medians over its rounds. */
export interface CapacityFigures {
  readonly rps: number;
  readonly requestsPerCall: number | undefined;
  readonly redisCpuUsPerRequest: number;
  readonly scriptUsPerRequest: number;
  readonly gatewayCpuUsPerRequest: number;
  /** 1,000,000 ÷ Redis CPU µs per request: gateway requests a second one Redis core serves. */
  readonly requestsPerRedisCore: number;
  /** Redis CPU ÷ gateway CPU per request: Redis cores per gateway core kept busy. */
  readonly redisCoresPerGatewayCore: number;
  /** The busiest node's share of Redis's CPU (1 on a standalone Redis; 1 ÷ nodes when spread evenly). */
  readonly busiestNodeShare: number;
  readonly failed: number;
}

/** A case's medians over its rounds (rounds that answered nothing are left out). */
export function capacityFigures(rounds: readonly CapacityRound[]): CapacityFigures {
  const counted = rounds.filter((round) => round.requests > 0);
  if (counted.length === 0) throw new Error('no round answered a request');
  const of = (reading: (round: CapacityRound) => number) => median(counted.map(reading));
  const redisCpu = of((round) => round.redis.cpuUsec / round.requests);
  const gatewayCpu = of((round) => (round.gatewayCpuMs * 1000) / round.requests);
  const withCalls = counted.filter((round) => round.redis.scriptCalls > 0);
  return {
    rps: of((round) => round.rps),
    requestsPerCall: withCalls.length === 0 ? undefined : median(withCalls.map((round) => round.requests / round.redis.scriptCalls)),
    redisCpuUsPerRequest: redisCpu,
    scriptUsPerRequest: of((round) => round.redis.scriptUsec / round.requests),
    gatewayCpuUsPerRequest: gatewayCpu,
    requestsPerRedisCore: redisCpu > 0 ? 1_000_000 / redisCpu : Number.POSITIVE_INFINITY,
    redisCoresPerGatewayCore: gatewayCpu > 0 ? redisCpu / gatewayCpu : Number.NaN,
    busiestNodeShare: of((round) => {
      const total = round.nodeCpuUsec.reduce((sum, usec) => sum + usec, 0);
      return total > 0 ? Math.max(...round.nodeCpuUsec) / total : 1;
    }),
    failed: rounds.reduce((sum, round) => sum + round.failed, 0),
  };
}

/**
 * The sizing rule: Redis cores (standalone: 1 at most, it runs scripts on one thread; a Cluster:
 * its masters) for `gatewayCores` gateway cores kept busy, keeping each Redis core under
 * `headroom` (0.7: room for bursts and the rest of Redis's work).
 */
export function redisCoresFor(gatewayCores: number, figures: Pick<CapacityFigures, 'redisCoresPerGatewayCore'>, headroom = 0.7): number {
  return Math.ceil((gatewayCores * figures.redisCoresPerGatewayCore) / headroom);
}

const whole = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '—');
const one = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(1));

/** The report: a row per case, then the sizing rule worked for 8, 16 and 64 gateway cores. */
export function capacityReport(cases: readonly CapacityCase[], header: readonly string[]): string {
  const lines = [
    ...header,
    '',
    '| Redis | spread of accounts | gateway req/s | requests per script call | Redis CPU µs/request | µs in the script per request | gateway CPU µs/request | **gateway req/s per Redis core** | Redis cores per gateway core | busiest node’s share of Redis CPU | failed |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const figures = cases.map((c) => ({ c, f: capacityFigures(c.rounds) }));
  for (const { c, f } of figures) {
    lines.push(
      `| ${c.redis}${c.redis === 'cluster' ? ` (${c.nodes} masters)` : ''} | ${c.spread} | ${whole(f.rps)} | ${one(f.requestsPerCall)} | ${one(f.redisCpuUsPerRequest)} | ${one(f.scriptUsPerRequest)} | ${one(f.gatewayCpuUsPerRequest)} | **${whole(f.requestsPerRedisCore)}** | ${f.redisCoresPerGatewayCore.toFixed(3)} | ${f.busiestNodeShare.toFixed(2)} | ${f.failed} |`,
    );
  }
  lines.push(
    '',
    'Sizing: Redis cores = ⌈N gateway cores × (Redis CPU µs/request ÷ gateway CPU µs/request) ÷ 0.7⌉, each Redis core kept under 70 %. A standalone Redis runs scripts on one thread: past one core, shard over a Cluster, whose masters share the accounts by slot when the accounts are many (the busiest node’s share near 1 ÷ masters), and not when one account takes the load (its state is one key, on one master).',
    '',
    '| Redis | spread of accounts | Redis cores for 8 gateway cores | for 16 | for 64 |',
    '|---|---|---:|---:|---:|',
    ...figures.map(
      ({ c, f }) =>
        `| ${c.redis} | ${c.spread} | ${[8, 16, 64].map((n) => (Number.isFinite(f.redisCoresPerGatewayCore) ? redisCoresFor(n, f) : '—')).join(' | ')} |`,
    ),
  );
  return `${lines.join('\n')}\n`;
}
