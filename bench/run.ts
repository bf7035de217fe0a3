// `npm run bench [-- --quick] [-- --rounds n] [-- --workers]`: starts what it measures (the core,
// gateways, the references), runs each scenario with autocannon (and the throughput ones with wrk
// too, where it is installed), then the observability goals' paired measurement (lib/paired.ts: the
// gateways loaded together, compared by CPU per request), the limiter alone, a SIGHUP reload under
// load (lib/reload.ts) and bursts across workers (lib/bursts.ts), stops everything, and writes
// bench/results/<time>.{json,md,svg}. `--workers` runs only what the goals of the issue "Every core"
// need: the plan's groups of that issue (WORKERS_GROUPS), the reload and the bursts.
// Ratios are measured within one run: absolute numbers on a shared 2-core machine are noise.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { makeKeys } from './lib/bench-keys.js';
import { cpuMeter } from './lib/cpu.js';
import { measureBursts, type BurstFigures } from './lib/bursts.js';
import { measureLimiter, type LimiterFigures } from './lib/limiter-figures.js';
import { measureObservability, startObservedGateways, type ObservedGateways } from './lib/observability.js';
import { pairedSkipReason, type PairedResult } from './lib/paired.js';
import { roundLine } from './lib/paired-summary.js';
import { LOAD_SETTINGS, QUICK_SETTINGS, runLoad } from './lib/load.js';
import { startReferences } from './lib/references.js';
import { measureReload, type ReloadFigures } from './lib/reload.js';
import { renderReport } from './lib/report.js';
import { runPlan } from './lib/run-plan.js';
import type { BenchContext } from './lib/scenario.js';
import { scriptCallCounter, type ScriptCallCounter } from './lib/script-calls.js';
import { startSeededCore, startService, type Service } from './lib/services.js';
import { negotiated, tlsSkipReason, trustedCertificate } from './lib/tls.js';
import { PLAN, WORKERS_GROUPS } from './scenarios/plan.js';
import { wrkSkipReason } from './lib/wrk.js';

const { values } = parseArgs({ options: { quick: { type: 'boolean' }, rounds: { type: 'string' }, workers: { type: 'boolean' } } });
const quick = values.quick ?? false;
const workersOnly = values.workers ?? false;
const settings = quick ? QUICK_SETTINGS : LOAD_SETTINGS;
const rounds = Number(values.rounds ?? (quick ? 1 : 4));
const manyKeyCount = quick ? 300 : 10_000;
// The bursts across workers: a series quiet and one under the CPU hog, each burst on a fresh free key.
const BURSTS = { bursts: quick ? 2 : 20, requests: 3000, limit: 60 } as const;
// The reload: SIGHUP to the primary this long into a load that goes on until every worker was replaced, and the tail more.
const RELOAD = quick ? { signalAfterSeconds: 1, tailSeconds: 1, maxSeconds: 30 } : { signalAfterSeconds: 3, tailSeconds: 3, maxSeconds: 60 };

async function main(): Promise<void> {
  const suiteStarted = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  const services: Service[] = [];
  let redis: RedisServer | undefined;
  let observed: ObservedGateways | undefined;
  let scriptCalls: ScriptCallCounter | undefined;
  try {
    const redisSkip = redisSkipReason();
    if (redisSkip !== false) process.stdout.write(`no Redis scenarios: ${redisSkip}\n`);
    else redis = await startRedis();
    const keys = await makeKeys(dir, manyKeyCount, BURSTS.bursts * 2);
    // The TLS scenarios' certificate, trusted by this process's own requests (the readiness probes).
    const tlsSkip = tlsSkipReason();
    const certificate = tlsSkip === false ? trustedCertificate(dir) : undefined;
    const { jwksFile, revocationsFile, oneKey, rejectedKey, manyKeys } = keys;
    const core = await startSeededCore();
    services.push(core);
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
    // The goals of the issue "Every core": the same gateways with two workers (the others run one).
    const bareWorkers2 = await startService('gateway (AUTH=off, RATE_LIMITS=off, WORKERS=2)', 'gateway', {
      ...gatewayEnv,
      AUTH: 'off',
      RATE_LIMITS: 'off',
      WORKERS: '2',
    });
    const limitsMemoryWorkers2 = await startService('gateway (keys, limits in process, WORKERS=2)', 'gateway', { ...limitsEnv, WORKERS: '2' });
    services.push(bare, bareHttpProxy, full, fullCold, limitsMemory, rejecting, bareWorkers2, limitsMemoryWorkers2);
    let authRedis: Service | undefined;
    let limitsRedis: Service | undefined;
    let limitsRedisControl: Service | undefined;
    let limitsRedisWorkers2: Service | undefined;
    let limitsRedisTls: Service | undefined;
    if (redis !== undefined) {
      const redisEnv = { REDIS_URL: redis.url, REVOCATIONS_FILE: '' };
      authRedis = await startService('gateway (keys, revocations in Redis)', 'gateway', { ...authEnv, ...redisEnv });
      limitsRedis = await startService('gateway (keys, limits in Redis)', 'gateway', { ...limitsEnv, ...redisEnv });
      // Configured as limitsRedis: the control of the paired observability measurement.
      limitsRedisControl = await startService('gateway (keys, limits in Redis, control)', 'gateway', { ...limitsEnv, ...redisEnv });
      limitsRedisWorkers2 = await startService('gateway (keys, limits in Redis, WORKERS=2)', 'gateway', { ...limitsEnv, ...redisEnv, WORKERS: '2' });
      services.push(authRedis, limitsRedis, limitsRedisControl, limitsRedisWorkers2);
      if (certificate !== undefined) {
        const tlsEnv = { TLS_CERT_FILE: certificate.certFile, TLS_KEY_FILE: certificate.keyFile };
        limitsRedisTls = await startService('gateway (keys, limits in Redis, TLS)', 'gateway', { ...limitsEnv, ...redisEnv, ...tlsEnv });
        services.push(limitsRedisTls);
      }
      scriptCalls = scriptCallCounter(redis.url);
      if (!workersOnly) observed = await startObservedGateways({ ...limitsEnv, ...redisEnv });
    }
    const references = await startReferences(dir, core.url, redis, keys, certificate, services);
    const { nginx, haproxy, haproxyJwt: haproxyJwtService, haproxyJwt2, haproxyJwtTls, haproxyKey, fastifyStack: stack } = references;
    const wrkSkip = wrkSkipReason();
    const pairedSkip = pairedSkipReason();
    const skipped = [
      ...references.skipped,
      ...(tlsSkip === false ? [] : [`no TLS scenarios: ${tlsSkip}`]),
      ...(wrkSkip === false ? [] : [`no wrk runs: ${wrkSkip}`]),
      ...(pairedSkip === false ? [] : [pairedSkip]),
    ];
    for (const line of skipped) process.stdout.write(`${line}\n`);
    const context: BenchContext = {
      core,
      bare,
      bareHttpProxy,
      full,
      fullCold,
      limitsMemory,
      bareWorkers2,
      limitsMemoryWorkers2,
      limitsRedisWorkers2,
      rejecting,
      authRedis,
      limitsRedis,
      limitsRedisControl,
      limitsRedisTls,
      observed,
      nginx,
      haproxy,
      haproxyJwt: haproxyJwtService,
      haproxyJwt2,
      haproxyJwtTls,
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
      [haproxyJwt2, `Bearer ${haproxyKey}`],
      [haproxyJwtTls, `Bearer ${haproxyKey}`],
      [stack, `Bearer ${oneKey}`],
      [bare, undefined],
      [bareHttpProxy, undefined],
      [full, `Bearer ${oneKey}`],
      [limitsMemory, `Bearer ${oneKey}`],
      [authRedis, `Bearer ${oneKey}`],
      [limitsRedis, `Bearer ${oneKey}`],
      [limitsRedisControl, `Bearer ${oneKey}`],
      [bareWorkers2, undefined],
      [limitsMemoryWorkers2, `Bearer ${oneKey}`],
      [limitsRedisWorkers2, `Bearer ${oneKey}`],
      [limitsRedisTls, `Bearer ${oneKey}`],
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

    const measure = cpuMeter({ core: core.pid, redis: redis?.pid });
    // What each TLS server agrees with a client like autocannon's: the report shows both sides alike.
    const tls: Record<string, string> = {};
    for (const [scenario, service] of [
      ['gateway-limits-redis-tls', limitsRedisTls],
      ['haproxy-jwt-stick-table-tls', haproxyJwtTls],
    ] as const) {
      if (service !== undefined) tls[scenario] = await negotiated(service.url);
    }

    const started = Date.now();
    const measurements = await runPlan({
      rounds,
      context,
      measure,
      wrk: wrkSkip === false,
      ...(scriptCalls === undefined ? {} : { scriptCalls: scriptCalls.count }),
      available: { redis: redis !== undefined, nginx: nginx !== undefined, haproxy: haproxy !== undefined, tls: certificate !== undefined },
      ...(workersOnly ? { plan: PLAN.filter((entry) => entry.group !== undefined && WORKERS_GROUPS.includes(entry.group)) } : {}),
    });

    // The observability goals: each gateway loaded together with `off`, compared by CPU per request (lib/paired.ts).
    let capacity: PairedResult | undefined;
    if (!workersOnly && pairedSkip === false && limitsRedis !== undefined && limitsRedisControl !== undefined && observed !== undefined) {
      capacity = await measureObservability(
        { off: limitsRedis, control: limitsRedisControl, observed },
        {
          headers: { authorization: `Bearer ${oneKey}` },
          rounds: quick ? 2 : 10,
          seconds: quick ? 1 : 5,
          warmupSeconds: quick ? 1 : 5,
          onRound: (round, samples) => process.stdout.write(`observability, loaded together, ${roundLine(round, samples)}\n`),
        },
      );
    }

    let limiter: LimiterFigures | undefined;
    if (!workersOnly && redis !== undefined) {
      limiter = await measureLimiter(redis.url, quick ? 0.5 : 5);
      process.stdout.write(
        `limiter: ${Math.round(limiter.decisionsPerSecond)} decisions/s (${limiter.concurrency} in flight), ${Math.round(limiter.oneBatchInFlight?.decisionsPerSecond ?? 0)} (64 in flight); memory ${JSON.stringify(limiter.memory)}\n`,
      );
    }
    // A SIGHUP reload under load, on a gateway of its own (WORKERS=2, keys and limits in process).
    const reloadGateway = await startService('gateway (keys, limits in process, WORKERS=2, reloaded)', 'gateway', { ...limitsEnv, WORKERS: '2' });
    services.push(reloadGateway);
    await runLoad({ url: `${reloadGateway.url}/v1/pets`, settings, duration: settings.warmupSeconds, headers: { authorization: `Bearer ${oneKey}` } });
    const reload: ReloadFigures = await measureReload({
      service: reloadGateway,
      gateway: 'WORKERS=2, one key, limits in process, never reached',
      path: '/v1/pets',
      headers: { authorization: `Bearer ${oneKey}` },
      connections: settings.connections,
      ...RELOAD,
    });
    process.stdout.write(
      reload.skipped === undefined
        ? reload.runs
            .map(
              (r) =>
                `reload (${r.generator}): ${r.requests} requests, ${r.failedAnswers} not 200, ${r.socketErrors} socket errors, ${r.timeouts} timeouts; workers replaced ${r.replaced} of ${r.workersBefore}${r.reloadMs === undefined ? ', not within the load' : ` in ${(r.reloadMs / 1000).toFixed(1)} s`}\n`,
            )
            .join('')
        : `reload: not measured: ${reload.skipped}\n`,
    );
    await reloadGateway.stop();

    // Bursts across workers, last: the CPU hog of their second series would disturb anything after.
    // A fresh gateway (WORKERS=2, keys, the shipped plans, no Redis): its first burst meets cold workers.
    const burstGateway = await startService('gateway (keys, shipped plans, WORKERS=2, bursts)', 'gateway', { ...authEnv, RATE_LIMITS: 'on', WORKERS: '2' });
    services.push(burstGateway);
    const bursts: BurstFigures = await measureBursts({
      service: burstGateway,
      keys: keys.freeKeys,
      ...BURSTS,
      onBurst: (line) => process.stdout.write(`${line}\n`),
    });
    await burstGateway.stop();

    const machine = { node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, loadavgAtStart: loadavg() };
    const run = {
      date: new Date(started).toISOString(),
      quick,
      workersOnly,
      rounds,
      settings,
      manyKeyCount,
      machine,
      seconds: Math.round((performance.now() - suiteStarted) / 1000),
      skipped,
      haproxyAlgorithm: references.haproxyAlgorithm,
      tls,
    };
    const stamp = run.date.replace(/[:.]/g, '-');
    const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, `${stamp}.json`), `${JSON.stringify({ run, limiter, capacity, reload, bursts, measurements }, null, 2)}\n`);
    const report = renderReport(run, measurements, limiter, capacity, { reload, bursts });
    writeFileSync(join(resultsDir, `${stamp}.svg`), report.svg);
    writeFileSync(join(resultsDir, `${stamp}.md`), `${report.markdown}\n![chart](${stamp}.svg)\n`);
    process.stdout.write(`\n${report.markdown}\nwritten: bench/results/${stamp}.{json,md,svg}\n`);
    if (observed !== undefined && observed.exports() === 0) throw new Error('the tracing gateway exported no spans to the sink');
    if (report.unexpected > 0) process.exitCode = 1;
  } finally {
    await Promise.all(services.map((service) => service.stop()));
    await observed?.close();
    scriptCalls?.close();
    await redis?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
