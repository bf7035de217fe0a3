// `npm run bench:redis [-- --rounds n] [--seconds s] [--accounts one,uniform,zipf] [--redis standalone,cluster]
// [--masters n] [--workers n] [--lease-units n] [--quick] [--record]` (issue 40 §5): what one Redis core serves. For a
// standalone Redis and a Redis Cluster (testkit's startRedisCluster, 3 masters by default), one
// gateway with the full pipeline on it (keys, revocations and limits in Redis) is loaded by wrk with
// each spread of accounts (lib/accounts.ts) in rounds; Redis's own counters (INFO cpu and
// commandstats, each node) and the gateway's CPU (/proc) are read around each round. It prints, and
// with --record writes to bench/results/redis-<time>.{md,json}, the gateway requests a second one
// Redis core serves and the Redis cores a gateway core needs (lib/redis-capacity-report.ts).
// A benchmark, not a test: it asserts nothing of speed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startRedis, startRedisCluster } from '@animal-store/testkit';
import { parseSpreads, spreadsFor } from './lib/accounts.js';
import { makeKeys } from './lib/bench-keys.js';
import { cpuMsOf } from './lib/cpu.js';
import { runLoad } from './lib/load.js';
import { capacityReport, type CapacityCase, type CapacityRound } from './lib/redis-capacity-report.js';
import { scriptCallCounter, statsDelta, type RedisStats } from './lib/script-calls.js';
import { startSeededCore, startService, type Service } from './lib/services.js';
import { makeSpreadKeys } from './lib/spread-keys.js';
import { sendEveryKey } from './lib/warm-up.js';
import { runWrk, wrkSkipReason } from './lib/wrk.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    accounts: { type: 'string' },
    redis: { type: 'string' },
    masters: { type: 'string' },
    workers: { type: 'string' },
    'lease-units': { type: 'string' },
    quick: { type: 'boolean' },
    record: { type: 'boolean' },
  },
});
const quick = values.quick ?? false;
const rounds = Number(values.rounds ?? (quick ? 1 : 5));
const seconds = Number(values.seconds ?? (quick ? 1 : 5));
const masters = Number(values.masters ?? 3);
const workers = values.workers ?? '1';
const topologies = (values.redis ?? 'standalone,cluster').split(',') as ('standalone' | 'cluster')[];
for (const topology of topologies)
  if (topology !== 'standalone' && topology !== 'cluster') throw new Error(`--redis: ${topology} is neither standalone nor cluster`);
if (![rounds, seconds, masters].every((n) => Number.isInteger(n) && n >= 1)) throw new Error('--rounds, --seconds and --masters take whole numbers ≥ 1');
const wrkSkip = wrkSkipReason();
if (wrkSkip !== false) throw new Error(wrkSkip);
const spreads = parseSpreads(values.accounts).map((name) => spreadsFor(quick)[name]);
const connections = quick ? 10 : 50;
const log = (line: string) => process.stdout.write(`${line}\n`);

const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
const started: Service[] = [];
const machine = { node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, loadavgAtStart: loadavg() };
try {
  const keys = await makeKeys(dir, 0);
  const spreadKeys = await makeSpreadKeys(dir, spreads, { claimsOf: keys.claimsOf, gateway: keys.sign }, quick ? 50_000 : 500_000);
  const core = await startSeededCore();
  started.push(core);
  const env = {
    UPSTREAM_URL: core.url,
    LOG_LEVEL: 'info',
    JWKS_FILE: keys.jwksFile,
    REVOCATIONS_FILE: '',
    RATE_LIMITS: 'on',
    PLANS_FILE: join(dir, 'plans.json'),
    WORKERS: workers,
    ...(values['lease-units'] === undefined ? {} : { RATE_LIMIT_LEASE_UNITS: values['lease-units'] }),
  };
  const cases: CapacityCase[] = [];
  for (const topology of topologies) {
    const cluster = topology === 'cluster' ? await startRedisCluster(masters) : undefined;
    const standalone = cluster === undefined ? await startRedis() : undefined;
    const urls = cluster?.nodes.map((node) => node.url) ?? [standalone?.url as string];
    const nodes = urls.map((url) => scriptCallCounter(url));
    const gateway = await startService(`gateway (full on Redis, ${topology}, WORKERS=${workers})`, 'gateway', {
      ...env,
      REDIS_URL: urls[0] as string,
      ...(cluster === undefined ? {} : { REDIS_CLUSTER: 'true' }),
    });
    started.push(gateway);
    try {
      for (const spread of spreads) {
        const rotation = spreadKeys[spread.name]?.gateway;
        const url = `${gateway.url}/v1/pets`;
        const request = rotation === undefined ? { headers: { authorization: `Bearer ${keys.oneKey}` } } : { keys: rotation };
        // Warm: a few seconds of the same load, and each key of the spread once (verified, cached).
        if (rotation !== undefined) await sendEveryKey(url, rotation, { connections, pipelining: 1, durationSeconds: 1, warmupSeconds: 0 });
        else await runLoad({ url, settings: { connections, pipelining: 1, durationSeconds: 2, warmupSeconds: 0 }, headers: request.headers ?? {} });
        await runWrk({ url, connections, seconds: quick ? 1 : 3, ...request });
        const caseRounds: CapacityRound[] = [];
        for (let round = 1; round <= rounds; round++) {
          const before = await Promise.all(nodes.map((node) => node.stats()));
          const gatewayBefore = cpuMsOf([gateway.pid as number]) as number;
          const result = await runWrk({ url, connections, seconds, ...request });
          const gatewayAfter = cpuMsOf([gateway.pid as number]) as number;
          const after = await Promise.all(nodes.map((node) => node.stats()));
          const deltas = after.map((stats, i) => statsDelta(before[i] as RedisStats, stats));
          const redis = deltas.reduce((sum, d) => ({
            scriptCalls: sum.scriptCalls + d.scriptCalls,
            scriptUsec: sum.scriptUsec + d.scriptUsec,
            cpuUsec: sum.cpuUsec + d.cpuUsec,
          }));
          const failed = (result.statuses.other ?? 0) + result.errors + result.timeouts;
          caseRounds.push({
            requests: result.requests,
            rps: result.rps,
            redis,
            nodeCpuUsec: deltas.map((d) => d.cpuUsec),
            gatewayCpuMs: gatewayAfter - gatewayBefore,
            failed,
          });
          log(
            `${topology} ${spread.label}, round ${round}: ${Math.round(result.rps)} req/s, ${(result.requests / Math.max(1, redis.scriptCalls)).toFixed(1)} requests per call, Redis ${(redis.cpuUsec / result.requests).toFixed(1)} µs/request, gateway ${(((gatewayAfter - gatewayBefore) * 1000) / result.requests).toFixed(1)} µs/request${failed > 0 ? `, ${failed} failed` : ''}`,
          );
        }
        cases.push({ redis: topology, nodes: urls.length, spread: spread.label, rounds: caseRounds });
      }
    } finally {
      await gateway.stop();
      started.splice(started.indexOf(gateway), 1);
      nodes.forEach((node) => node.close());
      await cluster?.close();
      await standalone?.close();
    }
  }
  const stamp = new Date().toISOString().replaceAll(':', '-').replace('.', '-');
  const header = [
    `# bench:redis ${stamp}${quick ? ' (quick: a smoke test, not a measurement)' : ''}`,
    '',
    `One gateway (WORKERS=${workers}; keys, revocations and limits in Redis) loaded by \`wrk -t1 -c${connections}\`, ${rounds} rounds × ${seconds} s per case, medians; Redis's CPU and script time from its own counters (INFO cpu, commandstats) summed over its nodes, the gateway's CPU from /proc. Node ${machine.node}, ${machine.cores} × ${machine.cpu}, load average at start ${machine.loadavgAtStart.map((n) => n.toFixed(2)).join(' ')}. Every process shares this machine's cores: read the per-request CPU figures, not req/s.`,
  ];
  const text = capacityReport(cases, header);
  log(`\n${text}`);
  if (values.record === true) {
    const file = join(import.meta.dirname, 'results', `redis-${stamp}`);
    writeFileSync(`${file}.md`, text);
    writeFileSync(`${file}.json`, `${JSON.stringify({ machine, rounds, seconds, workers, connections, cases }, null, 2)}\n`);
    log(`written to ${file}.md and .json`);
  }
  if (cases.some((c) => c.rounds.some((round) => round.failed > 0))) process.exitCode = 1;
} finally {
  await Promise.all(started.map((service) => service.stop()));
  rmSync(dir, { recursive: true, force: true });
}
