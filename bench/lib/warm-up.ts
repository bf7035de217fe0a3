import type { KeyRotation } from './key-files.js';
import { runLoad, type LoadSettings } from './load.js';
import type { PlanEntry } from '../scenarios/plan.js';
import type { BenchContext } from './scenario.js';
import type { Service } from './services.js';

/**
 * Warms the JIT and connection pools of what the plan measures (not `fullCold`, whose first pass
 * is measured): each service with one account's key for the warm-up time. Then each scenario of
 * many accounts (issue 40) for the warm-up time with its rotation, and a gateway once with every
 * key of its spread: a real gateway has verified its customers' keys long before, and a run's
 * tail of a Zipf spread would otherwise measure first signature checks.
 */
export async function warmUp(context: BenchContext, plan: readonly PlanEntry[], log: (line: string) => void): Promise<void> {
  const { oneKey, haproxyKey, settings, observed } = context;
  const gatewayKey = `Bearer ${oneKey}`;
  const warm: [Service | undefined, string | undefined][] = [
    [context.core, undefined],
    [context.nginx, undefined],
    [context.haproxy, undefined],
    [context.haproxyJwt, `Bearer ${haproxyKey}`],
    [context.haproxyJwt2, `Bearer ${haproxyKey}`],
    [context.haproxyJwtTls, `Bearer ${haproxyKey}`],
    [context.fastifyStack, gatewayKey],
    [context.bare, undefined],
    [context.bareHttpProxy, undefined],
    [context.full, gatewayKey],
    [context.limitsMemory, gatewayKey],
    [context.authRedis, gatewayKey],
    [context.limitsRedis, gatewayKey],
    [context.limitsRedisControl, gatewayKey],
    [context.bareWorkers2, undefined],
    [context.limitsMemoryWorkers2, gatewayKey],
    [context.limitsRedisWorkers2, gatewayKey],
    [context.limitsRedisTls, gatewayKey],
    [observed?.metrics, gatewayKey],
    [observed?.tracing, gatewayKey],
  ];
  for (const [service, authorization] of warm) {
    if (service === undefined) continue;
    await runLoad({
      url: `${service.url}/v1/pets`,
      settings,
      duration: settings.warmupSeconds,
      ...(authorization === undefined ? {} : { headers: { authorization } }),
    });
  }
  for (const { scenario } of plan) {
    const target = scenario.name.includes('@') && scenario.proxy?.(context) !== undefined ? scenario.wrk?.(context) : undefined;
    if (target?.keys === undefined) continue;
    await runLoad({ url: target.url, settings, duration: settings.warmupSeconds, authorization: target.keys.next });
    // A bare gateway reads no key: nothing to warm.
    if (!scenario.name.startsWith('gateway-') || scenario.name.startsWith('gateway-bare')) continue;
    const seconds = await sendEveryKey(target.url, target.keys, settings);
    log(`warm-up: ${scenario.name}, each of ${target.keys.headers.length} keys once in ${seconds.toFixed(1)} s`);
  }
}

/** Sends `url` each key of `keys` once (autocannon): a gateway's cache of verified keys then holds them all. Returns the seconds it took. */
export async function sendEveryKey(url: string, keys: KeyRotation, settings: LoadSettings): Promise<number> {
  const { headers } = keys;
  let at = 0;
  const started = performance.now();
  await runLoad({ url, settings, amount: headers.length, authorization: () => headers[at++ % headers.length] as string });
  return (performance.now() - started) / 1000;
}
