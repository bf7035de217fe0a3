// `npm run bench [-- --quick] [-- --rounds n] [-- --workers] [-- --accounts one,uniform,zipf] [-- --scenarios a,b]`:
// starts what it measures (the core, gateways, the references), runs each scenario with autocannon
// (and the throughput ones with wrk too, where it is installed), each throughput scenario with one
// account and with many (issue 40: lib/accounts.ts), then the observability goals' paired
// measurement, the limiter alone, a SIGHUP reload under load and bursts across workers
// (lib/bench-extras.ts), stops everything, and writes bench/results/<time>.{json,md,svg}.
// `--workers` runs only what the goals of the issue "Every core" need; `--accounts` the spreads of
// accounts named; `--scenarios` only the scenarios named (with every spread asked), and nothing after
// the rounds. Ratios are measured within one run: absolute numbers on a shared 2-core machine are noise.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { parseSpreads, spreadsFor } from './lib/accounts.js';
import { makeKeys } from './lib/bench-keys.js';
import { burstSettings, measureExtras } from './lib/bench-extras.js';
import { startBenchGateways } from './lib/bench-gateways.js';
import { cpuMeter } from './lib/cpu.js';
import { pairedSkipReason } from './lib/paired.js';
import { LOAD_SETTINGS, QUICK_SETTINGS } from './lib/load.js';
import { preface } from './lib/preface.js';
import { startReferences } from './lib/references.js';
import { renderReport } from './lib/report.js';
import { runPlan } from './lib/run-plan.js';
import type { BenchContext } from './lib/scenario.js';
import { scriptCallCounter, type ScriptCallCounter } from './lib/script-calls.js';
import { startSeededCore, type Service } from './lib/services.js';
import { makeSpreadKeys } from './lib/spread-keys.js';
import { negotiated, tlsSkipReason, trustedCertificate } from './lib/tls.js';
import { warmUp } from './lib/warm-up.js';
import { inGroups, planFor, WORKERS_GROUPS } from './scenarios/plan.js';
import { wrkSkipReason } from './lib/wrk.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    rounds: { type: 'string' },
    workers: { type: 'boolean' },
    accounts: { type: 'string' },
    scenarios: { type: 'string' },
  },
});
const quick = values.quick ?? false;
const workersOnly = values.workers ?? false;
const only = values.scenarios?.split(',').map((name) => name.trim());
const settings = quick ? QUICK_SETTINGS : LOAD_SETTINGS;
const rounds = Number(values.rounds ?? (quick ? 1 : 4));
const manyKeyCount = quick ? 300 : 10_000;
const spreadTable = spreadsFor(quick);
const spreads = parseSpreads(values.accounts).map((name) => spreadTable[name]);
const fullPlan = planFor(spreads, only);
const plan = workersOnly ? fullPlan.filter((entry) => inGroups(entry, WORKERS_GROUPS)) : fullPlan;
const log = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  // Before anything starts: what the run does to this machine, and how long it takes.
  process.stdout.write(preface({ quick, workersOnly, cores: availableParallelism() }));
  const suiteStarted = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  const services: Service[] = [];
  let redis: RedisServer | undefined;
  let gateways: Awaited<ReturnType<typeof startBenchGateways>> | undefined;
  let redisCounters: ScriptCallCounter | undefined;
  try {
    const redisSkip = redisSkipReason();
    if (redisSkip !== false) log(`no Redis scenarios: ${redisSkip}`);
    else redis = await startRedis();
    const keys = await makeKeys(dir, manyKeyCount, burstSettings(quick).bursts * 2);
    // The TLS scenarios' certificate, trusted by this process's own requests (the readiness probes).
    const tlsSkip = tlsSkipReason();
    const certificate = tlsSkip === false ? trustedCertificate(dir) : undefined;
    const core = await startSeededCore();
    services.push(core);
    // The observed gateways (metrics, tracing) where their scenarios or the paired measurement run.
    const observe = !workersOnly && (only === undefined || only.some((name) => /-(metrics|tracing)$/.test(name)));
    gateways = await startBenchGateways(core.url, { dir, ...keys }, redis, certificate, observe, services);
    if (redis !== undefined) redisCounters = scriptCallCounter(redis.url);
    const references = await startReferences(dir, core.url, redis, keys, certificate, services);
    const signing = performance.now();
    const spreadKeys = await makeSpreadKeys(
      dir,
      spreads,
      { claimsOf: keys.claimsOf, gateway: keys.sign, ...(references.haproxySign === undefined ? {} : { haproxy: references.haproxySign }) },
      quick ? 50_000 : 500_000,
    );
    log(`keys of ${spreads.map((spread) => spread.label).join('; ')}: signed in ${((performance.now() - signing) / 1000).toFixed(1)} s`);
    const wrkSkip = wrkSkipReason();
    const pairedSkip = pairedSkipReason();
    const skipped = [
      ...references.skipped,
      ...(tlsSkip === false ? [] : [`no TLS scenarios: ${tlsSkip}`]),
      ...(wrkSkip === false ? [] : [`no wrk runs: ${wrkSkip}`]),
      ...(pairedSkip === false ? [] : [pairedSkip]),
    ];
    for (const line of skipped) log(line);
    const context: BenchContext = {
      ...gateways,
      core,
      nginx: references.nginx,
      haproxy: references.haproxy,
      haproxyJwt: references.haproxyJwt,
      haproxyJwt2: references.haproxyJwt2,
      haproxyJwtTls: references.haproxyJwtTls,
      haproxyKey: references.haproxyKey,
      fastifyStack: references.fastifyStack,
      oneKey: keys.oneKey,
      rejectedKey: keys.rejectedKey,
      manyKeys: keys.manyKeys,
      spreads: spreadKeys,
      settings,
    };
    await warmUp(context, plan, log);

    const measure = cpuMeter({ core: core.pid, redis: redis?.pid });
    // What each TLS server agrees with a client like autocannon's: the report shows both sides alike.
    const tls: Record<string, string> = {};
    for (const [scenario, service] of [
      ['gateway-limits-redis-tls', context.limitsRedisTls],
      ['haproxy-jwt-stick-table-tls', context.haproxyJwtTls],
    ] as const) {
      if (service !== undefined) tls[scenario] = await negotiated(service.url);
    }

    const started = Date.now();
    const measurements = await runPlan({
      rounds,
      context,
      measure,
      wrk: wrkSkip === false,
      ...(redisCounters === undefined ? {} : { redisStats: redisCounters.stats }),
      available: { redis: redis !== undefined, nginx: context.nginx !== undefined, haproxy: context.haproxy !== undefined, tls: certificate !== undefined },
      plan,
    });
    const extras = await measureExtras(
      gateways,
      redis,
      {
        quick,
        observability: !workersOnly && only === undefined && pairedSkip === false,
        limiter: !workersOnly && only === undefined,
        workers: only === undefined,
        settings,
        oneKey: keys.oneKey,
        freeKeys: keys.freeKeys,
        log,
      },
      services,
    );

    const machine = { node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, loadavgAtStart: loadavg() };
    const run = {
      date: new Date(started).toISOString(),
      quick,
      workersOnly,
      rounds,
      settings,
      manyKeyCount,
      spreads: spreads.map((spread) => spread.name),
      ...(only === undefined ? {} : { only }),
      machine,
      seconds: Math.round((performance.now() - suiteStarted) / 1000),
      skipped,
      haproxyAlgorithm: references.haproxyAlgorithm,
      tls,
    };
    const stamp = run.date.replace(/[:.]/g, '-');
    const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, `${stamp}.json`), `${JSON.stringify({ run, ...extras, measurements }, null, 2)}\n`);
    const report = renderReport(run, measurements, extras.limiter, extras.capacity, extras);
    writeFileSync(join(resultsDir, `${stamp}.svg`), report.svg);
    writeFileSync(join(resultsDir, `${stamp}.md`), `${report.markdown}\n![chart](${stamp}.svg)\n`);
    log(`\n${report.markdown}\nwritten: bench/results/${stamp}.{json,md,svg}`);
    if (gateways.observed !== undefined && extras.capacity !== undefined && gateways.observed.exports() === 0)
      throw new Error('the tracing gateway exported no spans to the sink');
    if (report.unexpected > 0) process.exitCode = 1;
  } finally {
    await Promise.all(services.map((service) => service.stop()));
    await gateways?.observed?.close();
    redisCounters?.close();
    await redis?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
