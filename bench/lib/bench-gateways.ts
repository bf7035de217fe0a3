import { join } from 'node:path';
import type { RedisServer } from '@animal-store/testkit';
import { startObservedGateways, type ObservedGateways } from './observability.js';
import { startService, type Service } from './services.js';
import type { BenchCertificate } from './tls.js';

/** The gateways `npm run bench` measures, each its own process (WORKERS=1 unless named otherwise). */
export interface BenchGateways {
  readonly bare: Service;
  readonly bareHttpProxy: Service;
  readonly full: Service;
  readonly fullCold: Service;
  readonly limitsMemory: Service;
  readonly rejecting: Service;
  readonly bareWorkers2: Service;
  readonly limitsMemoryWorkers2: Service;
  readonly authRedis: Service | undefined;
  readonly limitsRedis: Service | undefined;
  readonly limitsRedisControl: Service | undefined;
  readonly limitsRedisWorkers2: Service | undefined;
  readonly limitsRedisTls: Service | undefined;
  readonly observed: ObservedGateways | undefined;
  /** The environments they were started with, for the gateways started later (the reload, the bursts). */
  readonly authEnv: Record<string, string>;
  readonly limitsEnv: Record<string, string>;
}

export interface GatewayFiles {
  readonly dir: string;
  readonly jwksFile: string;
  readonly revocationsFile: string;
}

/**
 * Starts the gateways in front of `coreUrl`: bare, keys, limits in process, the shipped plans,
 * with two workers, and where there is Redis those on Redis (over TLS with a `certificate`; the
 * observed ones unless `observe` is false). Each one started is pushed to `started` at once, so
 * the caller stops it even if a later one fails to start.
 */
export async function startBenchGateways(
  coreUrl: string,
  files: GatewayFiles,
  redis: RedisServer | undefined,
  certificate: BenchCertificate | undefined,
  observe: boolean,
  started: Service[],
): Promise<BenchGateways> {
  const start = async (name: string, env: Record<string, string>) => {
    const service = await startService(name, 'gateway', env);
    started.push(service);
    return service;
  };
  const gatewayEnv = { UPSTREAM_URL: coreUrl, LOG_LEVEL: 'info' };
  const bareEnv = { ...gatewayEnv, AUTH: 'off', RATE_LIMITS: 'off' };
  const bare = await start('gateway (AUTH=off, RATE_LIMITS=off)', bareEnv);
  const bareHttpProxy = await start('gateway (AUTH=off, RATE_LIMITS=off, PROXY_ENGINE=http-proxy)', { ...bareEnv, PROXY_ENGINE: 'http-proxy' });
  const authEnv = { ...gatewayEnv, JWKS_FILE: files.jwksFile, REVOCATIONS_FILE: files.revocationsFile, RATE_LIMITS: 'off' };
  const full = await start('gateway (keys)', authEnv);
  const fullCold = await start('gateway (keys, cold)', authEnv);
  const limitsEnv = { ...authEnv, RATE_LIMITS: 'on', PLANS_FILE: join(files.dir, 'plans.json') };
  const limitsMemory = await start('gateway (keys, limits in process)', limitsEnv);
  // The shipped plans: a free key is refused after 60 requests in a minute (see the scenario's prepare).
  const rejecting = await start('gateway (keys, shipped plans)', { ...authEnv, RATE_LIMITS: 'on' });
  // The goals of the issue "Every core": the same gateways with two workers (the others run one).
  const bareWorkers2 = await start('gateway (AUTH=off, RATE_LIMITS=off, WORKERS=2)', { ...bareEnv, WORKERS: '2' });
  const limitsMemoryWorkers2 = await start('gateway (keys, limits in process, WORKERS=2)', { ...limitsEnv, WORKERS: '2' });
  const onRedis = { authRedis: undefined, limitsRedis: undefined, limitsRedisControl: undefined, limitsRedisWorkers2: undefined, limitsRedisTls: undefined };
  // The gateways that need no Redis, and the settings the scenarios start others with.
  const local = { bare, bareHttpProxy, full, fullCold, limitsMemory, rejecting, bareWorkers2, limitsMemoryWorkers2, authEnv, limitsEnv };
  if (redis === undefined) return { ...local, ...onRedis, observed: undefined };
  const redisEnv = { REDIS_URL: redis.url, REVOCATIONS_FILE: '' };
  const authRedis = await start('gateway (keys, revocations in Redis)', { ...authEnv, ...redisEnv });
  const limitsRedis = await start('gateway (keys, limits in Redis)', { ...limitsEnv, ...redisEnv });
  // Configured as limitsRedis: the control of the paired observability measurement.
  const limitsRedisControl = await start('gateway (keys, limits in Redis, control)', { ...limitsEnv, ...redisEnv });
  const limitsRedisWorkers2 = await start('gateway (keys, limits in Redis, WORKERS=2)', { ...limitsEnv, ...redisEnv, WORKERS: '2' });
  const tlsEnv = certificate === undefined ? undefined : { TLS_CERT_FILE: certificate.certFile, TLS_KEY_FILE: certificate.keyFile };
  const limitsRedisTls = tlsEnv === undefined ? undefined : await start('gateway (keys, limits in Redis, TLS)', { ...limitsEnv, ...redisEnv, ...tlsEnv });
  const observed = observe ? await startObservedGateways({ ...limitsEnv, ...redisEnv }) : undefined;
  return { ...local, authRedis, limitsRedis, limitsRedisControl, limitsRedisWorkers2, limitsRedisTls, observed };
}
