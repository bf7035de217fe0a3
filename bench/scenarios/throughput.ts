import { SPREADS, type AccountSpread } from '../lib/accounts.js';
import type { LoadResult } from '../lib/load.js';
import { loadTarget, type BenchContext, type LoadTarget, type Scenario } from '../lib/scenario.js';
import type { Service } from '../lib/services.js';

/*
 * A throughput scenario: `GET /v1/pets` on one service, by autocannon and then wrk, with one
 * account's key or, measured with many accounts (issue 40), a key per request from a spread.
 */

export interface ThroughputScenario {
  readonly name: string;
  readonly description: string;
  readonly service: (context: BenchContext) => Service | undefined;
  /**
   * Which key it sends: the gateway's (the gateways and the Fastify stack), HAProxy's (the same
   * claims signed with the key it verifies), or none with one account (a bare proxy; with many
   * accounts it gets the gateway's keys unread, so its requests are the same size as the others').
   */
  readonly key: 'gateway' | 'haproxy' | 'none';
  readonly needsRedis?: boolean;
  readonly needsHaproxy?: boolean;
  readonly needsNginx?: boolean;
  readonly needsTls?: boolean;
  readonly reference?: boolean;
  /** The core itself, measured without a proxy: no proxy column in its row. */
  readonly noProxy?: boolean;
  /** Runs `load` with what the service needs around it (the metrics gateway is scraped). */
  readonly whileLoaded?: (context: BenchContext, load: () => Promise<LoadResult>) => Promise<LoadResult>;
}

/** The request of `scenario` with `spread`'s keys. */
export function throughputTarget(scenario: ThroughputScenario, spread: AccountSpread, context: BenchContext): LoadTarget {
  const url = `${scenario.service(context)?.url}/v1/pets`;
  if (spread.name === 'one') {
    if (scenario.key === 'none') return { url };
    const key = scenario.key === 'gateway' ? context.oneKey : context.haproxyKey;
    return { url, headers: { authorization: `Bearer ${key}` } };
  }
  const keys = context.spreads[spread.name];
  const rotation = scenario.key === 'haproxy' ? keys?.haproxy : keys?.gateway;
  if (rotation === undefined) throw new Error(`${scenario.name}: no keys of the spread ${spread.name} (${spread.label})`);
  return { url, keys: rotation };
}

/** `scenario` as the plan runs it with `spread`: named `<name><suffix>`, its description saying who sends. */
export function throughput(scenario: ThroughputScenario, spread: AccountSpread = SPREADS.one): Scenario {
  const target = (context: BenchContext) => throughputTarget(scenario, spread, context);
  const { whileLoaded } = scenario;
  return {
    name: `${scenario.name}${spread.suffix}`,
    description: spread.name === 'one' ? scenario.description : `${scenario.description}; ${spread.label}`,
    expectStatuses: [200],
    ...(scenario.needsRedis === true ? { needsRedis: true } : {}),
    ...(scenario.needsHaproxy === true ? { needsHaproxy: true } : {}),
    ...(scenario.needsNginx === true ? { needsNginx: true } : {}),
    ...(scenario.needsTls === true ? { needsTls: true } : {}),
    ...(scenario.reference === true ? { reference: true } : {}),
    run: (context) => {
      const load = () => loadTarget(target(context), context.settings);
      return whileLoaded === undefined ? load() : whileLoaded(context, load);
    },
    ...(scenario.noProxy === true ? {} : { proxy: scenario.service }),
    wrk: target,
  };
}
