// `npm run bench:compare -- <ref> [--rounds n] [--seconds s] [--paths bare,memory,redis] [--accounts one,uniform] [--record]`:
// the gateway at `ref` (a commit, branch or tag, checked out and installed beside this one, see
// lib/worktree.ts) against the working tree, in one run. For each path, three gateways on the
// same core: `ref`, a second `ref` (the control: what the method resolves in this run) and `work`.
// Rounds alternate the pairings (ref with control, ref with work; see lib/paired.ts), each pair
// loaded together by its own wrk, and each gateway's CPU per request read from /proc. Prints
// CPU µs per request, req/s and the ratios; `--record` also writes them to bench/results/.
// Every gateway runs with WORKERS=1 (lib/services.ts): a ref from before WORKERS ignores it and
// runs its one process; a tree with workers runs a primary and one worker, and its CPU per request
// is that of both (lib/cpu.ts sums a gateway's processes), so the primary's cost is in its figure.
// Each path is measured with one account and with 2,000 (issue 40: `--accounts`, lib/accounts.ts),
// a key per request; the Zipf spread too when asked (`--accounts one,uniform,zipf`).
// A benchmark, not a test: it asserts nothing of speed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startRedis, type RedisServer } from '@animal-store/testkit';
import { parseSpreads, SPREADS } from './lib/accounts.js';
import { makeKeys } from './lib/bench-keys.js';
import { comparisonReport, type PathComparison } from './lib/compare-report.js';
import { measurePaired, pairedSkipReason } from './lib/paired.js';
import { median, roundLine } from './lib/paired-summary.js';
import { cpuMsOf, processCount } from './lib/cpu.js';
import { runWrk, wrkSkipReason } from './lib/wrk.js';
import { startSeededCore, startService, type Service } from './lib/services.js';
import { makeSpreadKeys } from './lib/spread-keys.js';
import { sendEveryKey } from './lib/warm-up.js';
import { checkOut, describeWorkingTree } from './lib/worktree.js';

const PATHS = {
  bare: 'AUTH=off RATE_LIMITS=off: routing, header hygiene, proxy, access log',
  memory: 'one key, verified once and cached; limits in process, never reached',
  redis: 'one key; revocations and limits in Redis, never reached',
} as const;
type PathName = keyof typeof PATHS;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string' }, seconds: { type: 'string' }, paths: { type: 'string' }, accounts: { type: 'string' }, record: { type: 'boolean' } },
});
const ref = positionals[0];
const rounds = Number(values.rounds ?? 6);
const seconds = Number(values.seconds ?? 5);
const paths = (values.paths ?? 'bare,memory,redis').split(',') as PathName[];
const spreads = parseSpreads(values.accounts ?? 'one,uniform').map((name) => SPREADS[name]);
if (ref === undefined || positionals.length > 1)
  throw new Error('usage: npm run bench:compare -- <ref> [--rounds n] [--seconds s] [--paths bare,memory,redis] [--accounts one,uniform,zipf] [--record]');
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(seconds) || seconds < 1) throw new Error('--rounds and --seconds take whole numbers ≥ 1');
for (const path of paths) if (!(path in PATHS)) throw new Error(`--paths: ${path} is none of ${Object.keys(PATHS).join(', ')}`);
for (const skip of [pairedSkipReason(), wrkSkipReason()]) if (skip !== false) throw new Error(skip);

const log = (line: string) => process.stdout.write(`${line}\n`);
const checkout = checkOut(ref, log);
const work = describeWorkingTree();
const dir = mkdtempSync(join(tmpdir(), 'bench-compare-'));
const started: Service[] = [];
let redis: RedisServer | undefined;
const machine = { node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, loadavgAtStart: loadavg() };
try {
  const keys = await makeKeys(dir, 0);
  const spreadKeys = await makeSpreadKeys(dir, spreads, { claimsOf: keys.claimsOf, gateway: keys.sign }, 500_000);
  redis = paths.includes('redis') ? await startRedis() : undefined;
  const core = await startSeededCore();
  started.push(core);
  const base = { UPSTREAM_URL: core.url, LOG_LEVEL: 'info' };
  const keyed = { ...base, JWKS_FILE: keys.jwksFile, REVOCATIONS_FILE: keys.revocationsFile, RATE_LIMITS: 'on', PLANS_FILE: join(dir, 'plans.json') };
  const envOf: Record<PathName, () => Record<string, string>> = {
    bare: () => ({ ...base, AUTH: 'off', RATE_LIMITS: 'off' }),
    memory: () => keyed,
    redis: () => ({ ...keyed, REDIS_URL: (redis as RedisServer).url, REVOCATIONS_FILE: '' }),
  };
  const results: PathComparison[] = [];
  for (const spread of spreads) {
    const rotation = spreadKeys[spread.name]?.gateway;
    for (const path of paths) {
      const name = `${path}${spread.suffix}`;
      const description = spread.name === 'one' ? PATHS[path] : `${PATHS[path]}; ${spread.label}, a key per request`;
      log(`\n${name}: ${description}`);
      const env = envOf[path]();
      const gateways = [
        { name: 'ref', service: await startService(`gateway at ${ref}`, 'gateway', env, checkout.root) },
        { name: 'control', service: await startService(`gateway at ${ref} (control)`, 'gateway', env, checkout.root) },
        { name: 'work', service: await startService('gateway of the working tree', 'gateway', env) },
      ];
      started.push(...gateways.map((g) => g.service));
      const processes = Object.fromEntries(gateways.map((g) => [g.name, g.service.pid === undefined ? 0 : (processCount(g.service.pid) ?? 0)]));
      log(
        `  processes: ${Object.entries(processes)
          .map(([gateway, count]) => `${gateway} ${count}`)
          .join(', ')}`,
      );
      try {
        // A gateway of a spread first verifies each of its keys once, as one serving those customers has.
        if (rotation !== undefined && path !== 'bare')
          for (const gateway of gateways)
            await sendEveryKey(`${gateway.service.url}/v1/pets`, rotation, { connections: 25, pipelining: 1, durationSeconds: 1, warmupSeconds: 0 });
        const paired = await measurePaired({
          gateways,
          baseline: 'ref',
          path: '/v1/pets',
          ...(rotation !== undefined ? { keys: rotation } : path === 'bare' ? {} : { headers: { authorization: `Bearer ${keys.oneKey}` } }),
          rounds,
          seconds,
          warmupSeconds: 3,
          onRound: (round, samples) => log(`  ${roundLine(round, samples)}`),
        });
        results.push({ path: name, description, paired, processes });
      } finally {
        await Promise.all(gateways.map((g) => g.service.stop()));
      }
    }
  }
  // The machine's yardstick: the core alone, whose CPU per request moves with the host's speed.
  const coreRounds = [];
  for (let i = 0; i < 3; i++) {
    const before = cpuMsOf([core.pid as number]) as number;
    const result = await runWrk({ url: `${core.url}/v1/pets`, connections: 50, seconds });
    coreRounds.push((((cpuMsOf([core.pid as number]) as number) - before) * 1000) / result.requests);
  }
  const coreCpuUsPerRequest = median(coreRounds);
  const report = comparisonReport({ ref, commit: checkout.commit, work, rounds, seconds, machine, coreCpuUsPerRequest, results });
  log(`\n${report.text}`);
  if (values.record === true) {
    const stamp = new Date().toISOString().replaceAll(':', '-').replace('.', '-');
    const file = join(import.meta.dirname, 'results', `compare-${stamp}`);
    writeFileSync(`${file}.md`, report.text);
    writeFileSync(`${file}.json`, `${JSON.stringify(report.json, null, 2)}\n`);
    log(`written to ${file}.md and .json`);
  }
} finally {
  await Promise.all(started.map((service) => service.stop()));
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
}
