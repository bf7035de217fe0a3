import type { RedisServer } from '@animal-store/testkit';
import type { BenchGateways } from './bench-gateways.js';
import { measureBursts, type BurstFigures } from './bursts.js';
import { measureLimiter, type LimiterFigures } from './limiter-figures.js';
import { runLoad, type LoadSettings } from './load.js';
import { measureObservability } from './observability.js';
import type { PairedResult } from './paired.js';
import { roundLine } from './paired-summary.js';
import { measureReload, type ReloadFigures } from './reload.js';
import { startService, type Service } from './services.js';

/** What `npm run bench` measures after the plan's rounds. */
export interface ExtraFigures {
  readonly capacity?: PairedResult;
  readonly limiter?: LimiterFigures;
  readonly reload?: ReloadFigures;
  readonly bursts?: BurstFigures;
}

export interface ExtrasOptions {
  readonly quick: boolean;
  /** The observability goals' paired measurement (not with `--workers`, nor off Linux). */
  readonly observability: boolean;
  /** The limiter alone, against Redis (not with `--workers`). */
  readonly limiter: boolean;
  /** The reload and the bursts (not with `--scenarios`). */
  readonly workers: boolean;
  readonly settings: LoadSettings;
  readonly oneKey: string;
  readonly freeKeys: readonly string[];
  readonly log: (line: string) => void;
}

/**
 * After the rounds: the observability goals (each gateway loaded together with `off`, compared by
 * CPU per request), the limiter alone, a SIGHUP reload under load on a gateway of its own, and
 * bursts across workers, last: the CPU hog of their second series would disturb anything after.
 */
export async function measureExtras(
  gateways: BenchGateways,
  redis: RedisServer | undefined,
  options: ExtrasOptions,
  started: Service[],
): Promise<ExtraFigures> {
  const { quick, log, settings } = options;
  const authorization = `Bearer ${options.oneKey}`;
  let capacity: PairedResult | undefined;
  const { limitsRedis, limitsRedisControl, observed } = gateways;
  if (options.observability && limitsRedis !== undefined && limitsRedisControl !== undefined && observed !== undefined) {
    capacity = await measureObservability(
      { off: limitsRedis, control: limitsRedisControl, observed },
      {
        headers: { authorization },
        rounds: quick ? 2 : 10,
        seconds: quick ? 1 : 5,
        warmupSeconds: quick ? 1 : 5,
        onRound: (round, samples) => log(`observability, loaded together, ${roundLine(round, samples)}`),
      },
    );
  }
  let limiter: LimiterFigures | undefined;
  if (options.limiter && redis !== undefined) {
    limiter = await measureLimiter(redis.url, quick ? 0.5 : 5);
    log(
      `limiter: ${Math.round(limiter.decisionsPerSecond)} decisions/s (${limiter.concurrency} in flight), ${Math.round(limiter.oneBatchInFlight?.decisionsPerSecond ?? 0)} (64 in flight); memory ${JSON.stringify(limiter.memory)}`,
    );
  }
  if (!options.workers) return { ...(capacity === undefined ? {} : { capacity }), ...(limiter === undefined ? {} : { limiter }) };
  const start = async (name: string, env: Record<string, string>) => {
    const service = await startService(name, 'gateway', env);
    started.push(service);
    return service;
  };
  // A SIGHUP reload under load, on a gateway of its own (WORKERS=2, keys and limits in process).
  const reloadGateway = await start('gateway (keys, limits in process, WORKERS=2, reloaded)', { ...gateways.limitsEnv, WORKERS: '2' });
  await runLoad({ url: `${reloadGateway.url}/v1/pets`, settings, duration: settings.warmupSeconds, headers: { authorization } });
  const reload = await measureReload({
    service: reloadGateway,
    gateway: 'WORKERS=2, one key, limits in process, never reached',
    path: '/v1/pets',
    headers: { authorization },
    connections: settings.connections,
    ...(quick ? { signalAfterSeconds: 1, tailSeconds: 1, maxSeconds: 30 } : { signalAfterSeconds: 3, tailSeconds: 3, maxSeconds: 60 }),
  });
  for (const r of reload.runs)
    log(
      `reload (${r.generator}): ${r.requests} requests, ${r.failedAnswers} not 200, ${r.socketErrors} socket errors, ${r.timeouts} timeouts; workers replaced ${r.replaced} of ${r.workersBefore}${r.reloadMs === undefined ? ', not within the load' : ` in ${(r.reloadMs / 1000).toFixed(1)} s`}`,
    );
  if (reload.skipped !== undefined) log(`reload: not measured: ${reload.skipped}`);
  await reloadGateway.stop();
  // A fresh gateway (WORKERS=2, keys, the shipped plans, no Redis): its first burst meets cold workers.
  const burstGateway = await start('gateway (keys, shipped plans, WORKERS=2, bursts)', { ...gateways.authEnv, RATE_LIMITS: 'on', WORKERS: '2' });
  const bursts = await measureBursts({ service: burstGateway, keys: options.freeKeys, ...burstSettings(quick), onBurst: log });
  await burstGateway.stop();
  return { ...(capacity === undefined ? {} : { capacity }), ...(limiter === undefined ? {} : { limiter }), reload, bursts };
}

/** The bursts across workers: a series quiet and one under the CPU hog, each burst on a fresh free key. */
export function burstSettings(quick: boolean): { bursts: number; requests: number; limit: number } {
  return { bursts: quick ? 2 : 20, requests: 3000, limit: 60 };
}
