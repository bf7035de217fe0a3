// `npx tsx bench/limits-profile.ts [--seconds s] [--warmup s] [--rounds n]`: where the gateway's
// CPU goes with limits in Redis rather than in process, at 2,000 accounts (issue 40, point 3).
// Two gateways as they ship (the built entry, WORKERS=1), the full pipeline with limits in process
// and on Redis, each loaded by its own `wrk -t1 -c25` with a key per request from the uniform
// spread (2,000 accounts of 1,000 a minute: no leases, every limited request decided in Redis).
// After the warm-up, each gateway's processes (primary and worker) are sampled by perf on CPU time
// (lib/perf-profile.ts) for `--seconds`, and their CPU per request read from /proc over the same
// seconds. Printed per round: each part's share of the samples (inclusive), that share of the CPU
// µs per request, and the difference between the two gateways; then the medians over the rounds.
// The shares are robust to the host's load; the µs per request are not. Linux with perf only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { freePort, serviceCommand, startRedis, waitForReady } from '@animal-store/testkit';
import { SPREADS } from './lib/accounts.js';
import { makeKeys } from './lib/bench-keys.js';
import { childPids, cpuMsOf } from './lib/cpu.js';
import { parseStacks, perfSkipReason, recordCpu, scriptOf, sharesOf } from './lib/perf-profile.js';
import { REPOSITORY_ROOT, startBenchProcess, startService, type Service } from './lib/services.js';
import { makeSpreadKeys } from './lib/spread-keys.js';
import { sendEveryKey } from './lib/warm-up.js';
import { runWrk, wrkSkipReason } from './lib/wrk.js';

/** The parts reported, by the frames that enter them or belong to their libraries (inclusive). */
const PARTS = {
  'limits (ratelimit/)': /gateway\/dist\/ratelimit\//,
  'Redis client (ioredis)': /node_modules\/ioredis\//,
  'reply decoding (ioredis resp/)': /node_modules\/ioredis\/built\/resp\//,
  'script call and reply (redis-call.js, redis-reply.js)': /ratelimit\/redis\/redis-(call|reply)\.js/,
  'batch (redis/batch.js)': /gateway\/dist\/redis\/batch\.js/,
  'primary IPC': /gateway\/dist\/ipc\//,
  'keys (auth/)': /gateway\/dist\/auth\//,
  'access log (pino)': /observability\/access-log\.js|\/pino\//,
  'proxy (undici)': /node_modules\/undici\//,
  GC: /Scavenger|Heap::CollectGarbage|MarkCompact|Sweeper|ConcurrentMarking/,
  kernel: /\[kernel/,
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** How many frames the list of self time's growth shows. */
const TOP_FRAMES = 25;

/** CPU µs per request by innermost frame (its file path shortened to what follows node_modules/ or dist/). */
function selfShares(stacks: readonly (readonly string[])[], usPerRequest: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const stack of stacks) {
    const frame = (stack[0] ?? '?').replace(/file:\/\/\S*?(node_modules|dist)\//, '').replace(/ \(\S*\)$/, '');
    counts.set(frame, (counts.get(frame) ?? 0) + 1);
  }
  return new Map([...counts].map(([frame, count]) => [frame, (count / stacks.length) * usPerRequest]));
}

/** Script calls Redis ran so far (FCALL, EVALSHA and EVAL). */
async function scriptCalls(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  return [...stats.matchAll(/^cmdstat_(?:evalsha|eval|fcall):calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

const { values } = parseArgs({ options: { seconds: { type: 'string' }, warmup: { type: 'string' }, rounds: { type: 'string' } } });
const seconds = Number(values.seconds ?? 10);
const warmup = Number(values.warmup ?? 10);
const rounds = Number(values.rounds ?? 3);
for (const [name, value] of Object.entries({ seconds, warmup, rounds })) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} takes a whole number ≥ 1`);
}
for (const skip of [perfSkipReason(), wrkSkipReason(), cpuMsOf([process.pid]) === undefined && 'no /proc here']) if (skip !== false) throw new Error(skip);

const log = (line: string) => process.stdout.write(`${line}\n`);
// The gateways' working directory: node --perf-prof writes its jit-<pid>.dump files there.
const dir = mkdtempSync(join(tmpdir(), 'bench-limits-profile-'));
const redis = await startRedis();
const admin = new Redis(redis.url);
const started: Service[] = [];
try {
  const keys = await makeKeys(dir, 0);
  const rotation = (await makeSpreadKeys(dir, [SPREADS.uniform], { claimsOf: keys.claimsOf, gateway: keys.sign }, 500_000)).uniform?.gateway;
  if (rotation === undefined) throw new Error('no keys for the uniform spread');
  const core = await startService('core', 'core', { LOG_LEVEL: 'info' });
  started.push(core);
  // The built gateway as startService runs it, from `dir`: its own paths made absolute.
  const shipped = serviceCommand(REPOSITORY_ROOT, 'gateway');
  const command = shipped.command.map((arg, i) => (i === 0 || arg.startsWith('-') ? arg : resolve(shipped.cwd, arg)));
  const env = {
    UPSTREAM_URL: core.url,
    LOG_LEVEL: 'info',
    WORKERS: '1',
    JWKS_FILE: keys.jwksFile,
    REVOCATIONS_FILE: keys.revocationsFile,
    RATE_LIMITS: 'on',
    PLANS_FILE: join(dir, 'plans.json'),
    NODE_OPTIONS: '--perf-prof',
  };
  const start = async (name: string, extra: Record<string, string>): Promise<Service> => {
    const service = await startBenchProcess(name, { command, cwd: dir, env: { ...env, ...extra } }, await freePort());
    started.push(service);
    await waitForReady(service.url, 30_000);
    return service;
  };
  const pair = [await start('in process', {}), await start('on Redis', { REDIS_URL: redis.url, REVOCATIONS_FILE: '' })] as const;
  for (const service of pair) await sendEveryKey(`${service.url}/v1/pets`, rotation, { connections: 25, pipelining: 1, durationSeconds: 1, warmupSeconds: 0 });
  const load = (duration: number) =>
    Promise.all(pair.map((service) => runWrk({ url: `${service.url}/v1/pets`, keys: rotation, connections: 25, seconds: duration })));
  const perRound: Record<string, number>[][] = [[], []];
  /** Per gateway and round: CPU µs per request by the frame the samples were in (self time). */
  const selfOf: Map<string, number>[][] = [[], []];
  for (let round = 1; round <= rounds; round++) {
    await load(warmup);
    const trees = pair.map((service) => [service.pid as number, ...childPids(service.pid as number)]);
    const before = trees.map((pids) => cpuMsOf(pids) as number);
    const callsBefore = await scriptCalls(admin);
    const files = trees.map((pids) => pids.map((pid) => join(dir, `perf-${round}-${pid}.data`)));
    const [results] = await Promise.all([load(seconds), ...trees.flatMap((pids, i) => pids.map((pid, j) => recordCpu(pid, seconds, files[i]?.[j] as string)))]);
    const after = trees.map((pids) => cpuMsOf(pids) as number);
    const calls = (await scriptCalls(admin)) - callsBefore;
    log(`\nround ${round} (${seconds} s, after ${warmup} s of the same load):`);
    for (const [i, service] of pair.entries()) {
      const result = results[i];
      const usPerRequest = (((after[i] as number) - (before[i] as number)) * 1000) / (result?.requests as number);
      const stacks = (await Promise.all((files[i] as string[]).map(async (file) => parseStacks(await scriptOf(file))))).flat();
      const shares = sharesOf(stacks, PARTS);
      selfOf[i]?.push(selfShares(stacks, usPerRequest));
      const us = Object.fromEntries(Object.entries(shares).map(([part, share]) => [part, share * usPerRequest]));
      perRound[i]?.push({ total: usPerRequest, ...us });
      const non2xx = result?.statuses.other ?? 0;
      log(
        `  ${service.name.padEnd(10)} ${usPerRequest.toFixed(1)} CPU µs/req, ${Math.round(result?.rps ?? 0)} req/s${i === 1 ? `, ${((result?.requests as number) / calls).toFixed(1)} requests a script call` : ''}, ${non2xx} non-2xx, ${stacks.length} samples`,
      );
      log(
        `    ${Object.entries(shares)
          .map(([part, share]) => `${part} ${(share * 100).toFixed(1)} % (${(us[part] as number).toFixed(1)} µs)`)
          .join(', ')}`,
      );
    }
  }
  log(`\nmedians over ${rounds} rounds, CPU µs per request (primary and worker):`);
  log(`| part | in process | on Redis | Redis − in process |`);
  log(`|---|---:|---:|---:|`);
  for (const part of ['total', ...Object.keys(PARTS)]) {
    const [memory, onRedis] = perRound.map((samples) => median(samples.map((sample) => sample[part] as number))) as [number, number];
    const difference = median(perRound[0]?.map((sample, k) => (perRound[1]?.[k]?.[part] as number) - (sample[part] as number)) ?? []);
    log(`| ${part} | ${memory.toFixed(1)} | ${onRedis.toFixed(1)} | ${difference >= 0 ? '+' : ''}${difference.toFixed(1)} |`);
  }
  // The frames whose self time grew most from in process to on Redis, medians over the rounds.
  const frames = new Set(selfOf.flatMap((rounds) => rounds.flatMap((map) => [...map.keys()])));
  const growth = [...frames].map((frame) => {
    const [memory, onRedis] = selfOf.map((rounds) => median(rounds.map((map) => map.get(frame) ?? 0))) as [number, number];
    return { frame, memory, onRedis, grew: onRedis - memory };
  });
  log(`\nthe ${TOP_FRAMES} frames whose self time grew most, CPU µs per request (medians):`);
  log(`| frame | in process | on Redis |`);
  log(`|---|---:|---:|`);
  for (const { frame, memory, onRedis } of growth.sort((a, b) => b.grew - a.grew).slice(0, TOP_FRAMES)) {
    log(`| \`${frame.replaceAll('|', '/')}\` | ${memory.toFixed(1)} | ${onRedis.toFixed(1)} |`);
  }
} finally {
  await Promise.all(started.map((service) => service.stop()));
  admin.disconnect();
  await redis.close();
  rmSync(dir, { recursive: true, force: true });
}
