// `npx tsx bench/observability-profile.ts [--variants metrics,sampled,none,tracing] [--seconds s] [--warmup s]`:
// where an observed gateway's CPU goes. The full pipeline on Redis (`off`) and the same with metrics
// (scraped every 15 s) or tracing (`sampled`: one trace in ten; `none`: a ratio of 0, every request
// left out; `tracing`: every request) are loaded together, one pairing per variant, each by its own
// `wrk -t1 -c25`; after the warm-up, each gateway's worker is sampled by perf on CPU time
// (lib/perf-profile.ts) for `--seconds`, and its CPU per request read from /proc over the same
// seconds. Printed: each part's share of the worker's samples (inclusive), and that share of its
// CPU µs per request. The shares are robust to the host's load; the µs per request are not (see
// lib/paired.ts for what the pairing resolves). Linux with perf only.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, startRedis } from '@animal-store/testkit';
import { makeKeys } from './lib/bench-keys.js';
import { cpuMsOf, readProcesses, treeOf } from './lib/cpu.js';
import { parseStacks, perfSkipReason, recordCpu, scriptOf, sharesOf } from './lib/perf-profile.js';
import { REPOSITORY_ROOT, startBenchProcess, startSeededCore, type Service } from './lib/services.js';
import { runWrk, wrkSkipReason } from './lib/wrk.js';

/**
 * The parts of a gateway's CPU reported, by the frames that enter them or belong to their
 * libraries (inclusive: a subscriber's part holds what it calls). Not the publication of events:
 * `Channel.publish` holds its subscribers, and is inlined into its callers.
 */
const PARTS = {
  tracing: /observability\/(tracing|request-trace)\.ts|@opentelemetry\//,
  metrics: /observability\/(metrics|prom-series)\.ts|prom-client\//,
  'access log': /observability\/access-log\.ts|\/pino\//,
  GC: /Scavenger|Heap::CollectGarbage|MarkCompact|Sweeper|ConcurrentMarking/,
  kernel: /\[kernel/,
};

const { values } = parseArgs({ options: { variants: { type: 'string' }, seconds: { type: 'string' }, warmup: { type: 'string' } } });
const variants = (values.variants ?? 'metrics,sampled,none,tracing').split(',');
const seconds = Number(values.seconds ?? 15);
const warmup = Number(values.warmup ?? 20);
for (const skip of [perfSkipReason(), wrkSkipReason(), cpuMsOf([process.pid]) === undefined && 'no /proc here']) if (skip !== false) throw new Error(skip);

const log = (line: string) => process.stdout.write(`${line}\n`);
// The gateways' working directory: node --perf-prof writes its jit-<pid>.dump files there.
const dir = mkdtempSync(join(tmpdir(), 'bench-obs-profile-'));
const redis = await startRedis();
const sink = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const started: Service[] = [];
const scrapers: NodeJS.Timeout[] = [];
try {
  const keys = await makeKeys(dir, 0);
  const core = await startSeededCore();
  started.push(core);
  const env = {
    UPSTREAM_URL: core.url,
    LOG_LEVEL: 'info',
    JWKS_FILE: keys.jwksFile,
    RATE_LIMITS: 'on',
    PLANS_FILE: join(dir, 'plans.json'),
    REDIS_URL: redis.url,
    REVOCATIONS_FILE: '',
    NODE_OPTIONS: '--perf-prof',
  };
  const otlp = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`, OTEL_BSP_SCHEDULE_DELAY: '1000' };
  const envOf = async (variant: string): Promise<Record<string, string>> => {
    if (variant === 'metrics') {
      const port = await freePort();
      // Prometheus's default: a scrape every 15 s.
      scrapers.push(
        setInterval(
          () =>
            void fetch(`http://127.0.0.1:${port}/metrics`).then(
              (res) => res.text(),
              () => '',
            ),
          15_000,
        ),
      );
      return { METRICS_PORT: String(port) };
    }
    if (variant === 'sampled') return { ...otlp, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
    if (variant === 'none') return { ...otlp, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' };
    if (variant === 'tracing') return otlp;
    throw new Error(`no variant ${variant} (metrics, sampled, none, tracing)`);
  };
  const tsx = import.meta.resolve('tsx');
  const start = async (name: string, extra: Record<string, string>): Promise<Service> => {
    const entry = join(REPOSITORY_ROOT, 'packages/gateway/src/main.ts');
    const service = await startBenchProcess(
      name,
      { command: [process.execPath, '--import', tsx, entry], cwd: dir, env: { ...env, ...extra } },
      await freePort(),
    );
    started.push(service);
    return service;
  };
  const off = await start('off', {});
  const headers = { authorization: `Bearer ${keys.oneKey}` };
  const load = (services: readonly Service[], duration: number) =>
    Promise.all(services.map((service) => runWrk({ url: `${service.url}/v1/pets`, headers, connections: 25, seconds: duration })));
  const report: Record<string, unknown>[] = [];
  for (const variant of variants) {
    const observed = await start(variant, await envOf(variant));
    const pair = [off, observed] as const;
    await load(pair, warmup);
    const workers = pair.map((service) => workerOf(service.pid as number));
    const before = pair.map((service) => cpuMsOf([service.pid as number]) as number);
    const files = workers.map((pid) => join(dir, `perf-${pid}.data`));
    const [results] = await Promise.all([load(pair, seconds), ...workers.map((pid, i) => recordCpu(pid, seconds, files[i] as string))]);
    const after = pair.map((service) => cpuMsOf([service.pid as number]) as number);
    log(`\n${variant}, paired with off (${seconds} s, after ${warmup} s of the same load):`);
    for (const [i, service] of pair.entries()) {
      const usPerRequest = (((after[i] as number) - (before[i] as number)) * 1000) / (results[i]?.requests as number);
      const stacks = parseStacks(await scriptOf(files[i] as string));
      const shares = sharesOf(stacks, PARTS);
      const parts = Object.entries(shares).map(([part, share]) => `${part} ${(share * 100).toFixed(2)} % (${(share * usPerRequest).toFixed(1)} µs)`);
      log(
        `  ${service.name.padEnd(8)} ${usPerRequest.toFixed(1)} CPU µs/req, ${Math.round(results[i]?.rps ?? 0)} req/s, ${stacks.length} samples: ${parts.join(', ')}`,
      );
      report.push({ variant, gateway: service.name, usPerRequest, rps: results[i]?.rps, samples: stacks.length, shares });
    }
    await observed.stop();
  }
  writeFileSync(join(dir, 'report.json'), JSON.stringify(report, null, 2));
} finally {
  for (const scraper of scrapers) clearInterval(scraper);
  await Promise.all(started.map((service) => service.stop()));
  sink.close();
  await redis.close();
  rmSync(dir, { recursive: true, force: true });
}

/** The worker of a gateway started with WORKERS=1: its primary's one child of the same program. */
function workerOf(primary: number): number {
  const tree = treeOf(readProcesses(), primary);
  const worker = tree.find((entry) => entry.ppid === primary && entry.name === tree[0]?.name);
  if (worker === undefined) throw new Error(`no worker under gateway pid ${primary}`);
  return worker.pid;
}
