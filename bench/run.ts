// `npm run bench [-- --quick] [-- --rounds n]`: starts what it measures (the core, gateways, the
// references), runs each scenario with autocannon (and the throughput ones with wrk too, where it is
// installed), then the observability goals' paired measurement (lib/paired.ts: the gateways loaded
// together, compared by CPU per request), stops everything, and writes bench/results/<time>.{json,md,svg}.
// Ratios are measured within one run: absolute numbers on a shared 2-core machine are noise.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { generateSigningKey, signApiKey, type ApiKeyToSign, type JWK } from '../packages/gateway/src/auth/index.js';
import { cpuMsOf, machineBusyMs } from './lib/cpu.js';
import { measureLimiter, type LimiterFigures } from './lib/limiter-figures.js';
import { measureObservability, startObservedGateways, type ObservedGateways } from './lib/observability.js';
import { pairedSkipReason, type PairedResult } from './lib/paired.js';
import { roundLine } from './lib/paired-summary.js';
import { LOAD_SETTINGS, QUICK_SETTINGS, runLoad, type LoadResult } from './lib/load.js';
import { startReferences } from './lib/references.js';
import { renderReport, type Measurement } from './lib/report.js';
import type { BenchContext, Scenario } from './lib/scenario.js';
import { startService, type Service } from './lib/services.js';
import { runWrk, wrkSkipReason } from './lib/wrk.js';
import { coreDirect } from './scenarios/core-direct.js';
import { fastifyStack } from './scenarios/fastify-stack.js';
import { gatewayAuthManyKeysCold, gatewayAuthManyKeysWarm, gatewayAuthOneKey } from './scenarios/gateway-auth.js';
import { gatewayBare, gatewayBareHttpProxy } from './scenarios/gateway-bare.js';
import { gatewayAuthRedis, gatewayLimitsMemory, gatewayLimitsRedis, gatewayLimitsRedisControl } from './scenarios/gateway-limits.js';
import { gatewayMetrics, gatewayTracing } from './scenarios/gateway-observability.js';
import { haproxyBare, haproxyJwt } from './scenarios/haproxy.js';
import { nginxProxyPass } from './scenarios/nginx.js';
import { latencyCore, latencyGateway, latencyGatewayRedis, rejectionPath } from './scenarios/rejection-and-latency.js';

const { values } = parseArgs({ options: { quick: { type: 'boolean' }, rounds: { type: 'string' } } });
const quick = values.quick ?? false;
const settings = quick ? QUICK_SETTINGS : LOAD_SETTINGS;
const rounds = Number(values.rounds ?? (quick ? 1 : 4));
const manyKeyCount = quick ? 300 : 10_000;

/** Paired scenarios run alternately, `rounds` times, so drift on the machine hits both alike. */
const PLAN: { scenario: Scenario; repeat: boolean }[] = [
  { scenario: coreDirect, repeat: false },
  { scenario: nginxProxyPass, repeat: true },
  { scenario: haproxyBare, repeat: true },
  { scenario: haproxyJwt, repeat: true },
  { scenario: fastifyStack, repeat: true },
  { scenario: gatewayBare, repeat: true },
  { scenario: gatewayBareHttpProxy, repeat: true },
  { scenario: gatewayAuthOneKey, repeat: true },
  { scenario: gatewayLimitsMemory, repeat: true },
  { scenario: gatewayAuthRedis, repeat: true },
  { scenario: gatewayLimitsRedis, repeat: true },
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

async function makeKeys(
  dir: string,
): Promise<{ jwksFile: string; publicJwk: JWK; revocationsFile: string; oneKey: string; oneKeyClaims: ApiKeyToSign; rejectedKey: string; manyKeys: string[] }> {
  const { privateJwk, publicJwk } = await generateSigningKey();
  const jwksFile = join(dir, 'jwks.json');
  writeFileSync(jwksFile, JSON.stringify({ keys: [publicJwk] }));
  // A deny-list file, as a single instance without Redis runs: its revocation check is measured too.
  const revocationsFile = join(dir, 'revoked.json');
  writeFileSync(revocationsFile, JSON.stringify({ revoked: { 'some-old-key': new Date().toISOString() } }));
  // Limits high enough never to refuse: the limit check is measured, not refusals.
  const high = { minute: 1_000_000_000, day: 1_000_000_000 };
  writeFileSync(join(dir, 'plans.json'), JSON.stringify({ plans: { free: high, pro: high, business: high, enterprise: high }, anonymous: high, accounts: {} }));
  const claims = (sub: string, jti: string): ApiKeyToSign => ({
    issuer: 'animal-store',
    audience: 'animal-store-production',
    subject: sub,
    keyId: jti,
    plan: 'business',
    issuedAt: Date.now(),
  });
  const sign = (sub: string, jti: string) => signApiKey(privateJwk, claims(sub, jti));
  const oneKeyClaims = claims('bench', 'bench-one');
  const oneKey = await signApiKey(privateJwk, oneKeyClaims);
  const rejectedKey = await signApiKey(privateJwk, {
    issuer: 'animal-store',
    audience: 'animal-store-production',
    subject: 'over-limit',
    keyId: 'bench-rejected',
    plan: 'free',
    issuedAt: Date.now(),
  });
  const manyKeys = await Promise.all(Array.from({ length: manyKeyCount }, (_, i) => sign(`account-${i}`, `bench-${i}`)));
  return { jwksFile, publicJwk, revocationsFile, oneKey, oneKeyClaims, rejectedKey, manyKeys };
}

async function main(): Promise<void> {
  const suiteStarted = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  const services: Service[] = [];
  let redis: RedisServer | undefined;
  let observed: ObservedGateways | undefined;
  try {
    const redisSkip = redisSkipReason();
    if (redisSkip !== false) process.stdout.write(`no Redis scenarios: ${redisSkip}\n`);
    else redis = await startRedis();
    const keys = await makeKeys(dir);
    const { jwksFile, revocationsFile, oneKey, rejectedKey, manyKeys } = keys;
    const core = await startService('core', 'core', { LOG_LEVEL: 'info' });
    services.push(core);
    for (let i = 0; i < 20; i++) {
      await fetch(`${core.url}/v1/pets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `pet-${i}`, categoryId: 1 + (i % 4), status: 'available' }),
      });
    }
    const gatewayEnv = { UPSTREAM_URL: core.url, LOG_LEVEL: 'info' };
    const bare = await startService('gateway (AUTH=off, RATE_LIMITS=off)', 'gateway', { ...gatewayEnv, AUTH: 'off', RATE_LIMITS: 'off' });
    const bareHttpProxy = await startService('gateway (AUTH=off, RATE_LIMITS=off, PROXY_ENGINE=http-proxy)', 'gateway', {
      ...gatewayEnv,
      AUTH: 'off',
      RATE_LIMITS: 'off',
      PROXY_ENGINE: 'http-proxy',
    });
    const authEnv = { ...gatewayEnv, JWKS_FILE: jwksFile, REVOCATIONS_FILE: revocationsFile, RATE_LIMITS: 'off' };
    const full = await startService('gateway (keys)', 'gateway', authEnv);
    const fullCold = await startService('gateway (keys, cold)', 'gateway', authEnv);
    const limitsEnv = { ...authEnv, RATE_LIMITS: 'on', PLANS_FILE: join(dir, 'plans.json') };
    const limitsMemory = await startService('gateway (keys, limits in process)', 'gateway', limitsEnv);
    // The shipped plans: a free key is refused after 60 requests in a minute (see the scenario's prepare).
    const rejecting = await startService('gateway (keys, shipped plans)', 'gateway', { ...authEnv, RATE_LIMITS: 'on' });
    services.push(bare, bareHttpProxy, full, fullCold, limitsMemory, rejecting);
    let authRedis: Service | undefined;
    let limitsRedis: Service | undefined;
    let limitsRedisControl: Service | undefined;
    if (redis !== undefined) {
      const redisEnv = { REDIS_URL: redis.url, REVOCATIONS_FILE: '' };
      authRedis = await startService('gateway (keys, revocations in Redis)', 'gateway', { ...authEnv, ...redisEnv });
      limitsRedis = await startService('gateway (keys, limits in Redis)', 'gateway', { ...limitsEnv, ...redisEnv });
      // Configured as limitsRedis: the control of the paired observability measurement.
      limitsRedisControl = await startService('gateway (keys, limits in Redis, control)', 'gateway', { ...limitsEnv, ...redisEnv });
      services.push(authRedis, limitsRedis, limitsRedisControl);
      observed = await startObservedGateways({ ...limitsEnv, ...redisEnv });
    }
    const references = await startReferences(dir, core.url, redis, keys, services);
    const { nginx, haproxy, haproxyJwt: haproxyJwtService, haproxyKey, fastifyStack: stack } = references;
    const wrkSkip = wrkSkipReason();
    const pairedSkip = pairedSkipReason();
    const skipped = [...references.skipped, ...(wrkSkip === false ? [] : [`no wrk runs: ${wrkSkip}`]), ...(pairedSkip === false ? [] : [pairedSkip])];
    for (const line of skipped) process.stdout.write(`${line}\n`);
    const context: BenchContext = {
      core,
      bare,
      bareHttpProxy,
      full,
      fullCold,
      limitsMemory,
      rejecting,
      authRedis,
      limitsRedis,
      limitsRedisControl,
      observed,
      nginx,
      haproxy,
      haproxyJwt: haproxyJwtService,
      haproxyKey,
      fastifyStack: stack,
      oneKey,
      rejectedKey,
      manyKeys,
      settings,
    };

    // Warm the JIT and connection pools of what the paired scenarios measure (not fullCold).
    const warm: [Service | undefined, string | undefined][] = [
      [core, undefined],
      [nginx, undefined],
      [haproxy, undefined],
      [haproxyJwtService, `Bearer ${haproxyKey}`],
      [stack, `Bearer ${oneKey}`],
      [bare, undefined],
      [bareHttpProxy, undefined],
      [full, `Bearer ${oneKey}`],
      [limitsMemory, `Bearer ${oneKey}`],
      [authRedis, `Bearer ${oneKey}`],
      [limitsRedis, `Bearer ${oneKey}`],
      [limitsRedisControl, `Bearer ${oneKey}`],
      [observed?.metrics, `Bearer ${oneKey}`],
      [observed?.tracing, `Bearer ${oneKey}`],
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

    // Where each scenario's CPU went: its proxy's own process, the core, Redis, the whole machine.
    const cpuNow = (proxy: Service | undefined) => ({
      proxy: proxy?.pid === undefined ? undefined : cpuMsOf([proxy.pid]),
      core: core.pid === undefined ? undefined : cpuMsOf([core.pid]),
      redis: redis?.pid === undefined ? undefined : cpuMsOf([redis.pid]),
      machine: machineBusyMs(),
    });
    /** Runs one load (`load`) and divides the CPU each part used during it by the requests answered. */
    const measure = async (proxy: Service | undefined, load: () => Promise<LoadResult>) => {
      const before = cpuNow(proxy);
      const result = await load();
      const after = cpuNow(proxy);
      const perRequest = (key: keyof typeof before) => {
        const [from, to] = [before[key], after[key]];
        return from === undefined || to === undefined || result.requests === 0 ? undefined : ((to - from) * 1000) / result.requests;
      };
      return { result, cpu: { proxy: perRequest('proxy'), core: perRequest('core'), redis: perRequest('redis'), machine: perRequest('machine') } };
    };

    const measurements: Measurement[] = [];
    const started = Date.now();
    for (let round = 1; round <= rounds; round++) {
      for (const { scenario, repeat } of PLAN) {
        if (!repeat && round > 1) continue;
        if (scenario.needsRedis === true && redis === undefined) continue;
        if (scenario.needsNginx === true && nginx === undefined) continue;
        if (scenario.needsHaproxy === true && haproxy === undefined) continue;
        await scenario.prepare?.(context);
        const proxy = scenario.proxy?.(context);
        const runs: [Measurement['generator'], () => Promise<LoadResult>][] = [['autocannon', () => scenario.run(context)]];
        // wrk right after autocannon, on the same target: the two generators see the same machine.
        const wrkTarget = scenario.wrk?.(context);
        if (wrkSkip === false && wrkTarget !== undefined)
          runs.push(['wrk', () => runWrk({ ...wrkTarget, connections: settings.connections, seconds: settings.durationSeconds })]);
        for (const [generator, load] of runs) {
          const { result, cpu } = await measure(proxy, load);
          measurements.push({
            scenario: scenario.name,
            generator,
            description: scenario.description,
            round,
            expectStatuses: scenario.expectStatuses,
            reference: scenario.reference === true,
            result,
            cpu,
          });
          process.stdout.write(
            `${`${scenario.name} (${generator})`.padEnd(42)} round ${round}: ${Math.round(result.rps)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms\n`,
          );
        }
      }
    }

    // The observability goals: each gateway loaded together with `off`, compared by CPU per request (lib/paired.ts).
    let capacity: PairedResult | undefined;
    if (pairedSkip === false && limitsRedis !== undefined && limitsRedisControl !== undefined && observed !== undefined) {
      capacity = await measureObservability(
        { off: limitsRedis, control: limitsRedisControl, observed },
        {
          headers: { authorization: `Bearer ${oneKey}` },
          rounds: quick ? 3 : 10,
          seconds: quick ? 2 : 5,
          warmupSeconds: 5,
          onRound: (round, samples) => process.stdout.write(`observability, loaded together, ${roundLine(round, samples)}\n`),
        },
      );
    }

    let limiter: LimiterFigures | undefined;
    if (redis !== undefined) {
      limiter = await measureLimiter(redis.url, quick ? 0.5 : 5);
      process.stdout.write(
        `limiter: ${Math.round(limiter.decisionsPerSecond)} decisions/s (${limiter.concurrency} in flight), ${Math.round(limiter.oneBatchInFlight?.decisionsPerSecond ?? 0)} (64 in flight); memory ${JSON.stringify(limiter.memory)}\n`,
      );
    }
    const machine = { node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, loadavgAtStart: loadavg() };
    const run = {
      date: new Date(started).toISOString(),
      quick,
      rounds,
      settings,
      manyKeyCount,
      machine,
      seconds: Math.round((performance.now() - suiteStarted) / 1000),
      skipped,
      haproxyAlgorithm: references.haproxyAlgorithm,
    };
    const stamp = run.date.replace(/[:.]/g, '-');
    const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, `${stamp}.json`), `${JSON.stringify({ run, limiter, capacity, measurements }, null, 2)}\n`);
    const report = renderReport(run, measurements, limiter, capacity);
    writeFileSync(join(resultsDir, `${stamp}.svg`), report.svg);
    writeFileSync(join(resultsDir, `${stamp}.md`), `${report.markdown}\n![chart](${stamp}.svg)\n`);
    process.stdout.write(`\n${report.markdown}\nwritten: bench/results/${stamp}.{json,md,svg}\n`);
    if (observed !== undefined && observed.exports() === 0) throw new Error('the tracing gateway exported no spans to the sink');
    if (report.unexpected > 0) process.exitCode = 1;
  } finally {
    await Promise.all(services.map((service) => service.stop()));
    await observed?.close();
    await redis?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
