// `npm run bench:limits-ipc [-- --checks n] [--record]`: what a limit check costs when a
// gateway's workers share their in-process limits through the primary (issue 30, point 2), in CPU
// per check on both sides of the cluster's IPC channel, against the same check on a limiter in
// the process. One real `node:cluster` worker (packages/gateway/test/support/primary-limits-worker.ts)
// sends `batch` checks at once, waits for their decisions, again, until `checks` are decided, over
// 1,000 accounts whose limits are never reached; this process is its primary and decides them.
// Both serializations of node:cluster are measured. Figures: `process.cpuUsage()` of each side.
// Then the gateway itself (where wrk is installed): WORKERS=1 and 2, limits in process, one key
// whose limits are never reached, `wrk -c25` for `--seconds`, `--rounds` times: the CPU its
// primary (the limits) and its workers used per request, from /proc.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createMemoryLimiter, hostLimits, minuteAndDay, type LimitRequest, type RateDecision } from '@animal-store/gateway';
import { forkLimitsWorkers, LIMITS, stopLimitsWorkers } from '@animal-store/gateway/testing';
import { makeKeys } from './lib/bench-keys.js';
import { childPids, processCpuMs } from './lib/cpu.js';
import { startService, type Service } from './lib/services.js';
import { runWrk, wrkSkipReason } from './lib/wrk.js';

const { values } = parseArgs({
  options: { checks: { type: 'string' }, rounds: { type: 'string' }, seconds: { type: 'string' }, record: { type: 'boolean' } },
});
const checks = Number(values.checks ?? 200_000);
const rounds = Number(values.rounds ?? 4);
const seconds = Number(values.seconds ?? 8);
const BATCHES = [1, 8, 64] as const;
const SUBJECTS = 1000;
const REPEATS = 3;

const request: LimitRequest = { subject: 'bench', keyId: 'bench-key', policy: minuteAndDay('business', 1_000_000_000, 1_000_000_000) };

const log = (line: string) => process.stdout.write(`${line}\n`);
const micros = (usage: NodeJS.CpuUsage) => usage.user + usage.system;

/** The same checks on a limiter in this process: what a worker with its own limiter spends. */
async function inProcess(batch: number): Promise<number> {
  const limiter = createMemoryLimiter();
  const requests = Array.from({ length: SUBJECTS }, (_, i) => ({ ...request, subject: `${request.subject}-${i}` }));
  let next = 0;
  const cpu = process.cpuUsage();
  for (let done = 0; done < checks; done += batch) {
    const pending: Promise<RateDecision>[] = [];
    for (let i = 0; i < batch; i++) pending.push(limiter.check(requests[next++ % SUBJECTS] as LimitRequest));
    await Promise.all(pending);
  }
  return micros(process.cpuUsage(cpu)) / checks;
}

async function sequentially(times: number, run: () => Promise<number>): Promise<number[]> {
  const results: number[] = [];
  for (let i = 0; i < times; i++) results.push(await run());
  return results;
}

interface Row {
  serialization: string;
  batch: number;
  worker: number;
  primary: number;
  total: number;
  wallMicros: number;
}

const rows: Row[] = [];
const local: Record<number, number> = {};
await inProcess(8); // warm-up: the limiter's code compiled
for (const batch of BATCHES) local[batch] = Math.min(...(await sequentially(REPEATS, () => inProcess(batch))));
for (const serialization of ['json', 'advanced'] as const) {
  const workers = await forkLimitsWorkers(1, hostLimits(LIMITS), { serialization });
  const [worker] = workers;
  try {
    // Warm-up: the code paths of both sides compiled, the accounts' counters made.
    await worker?.run({ kind: 'cpu', request, subjects: SUBJECTS, batch: 8, rounds: 5000 });
    for (const batch of BATCHES) {
      let best: Row | undefined;
      for (let repeat = 0; repeat < REPEATS; repeat++) {
        const cpu = process.cpuUsage();
        const spent = (await worker?.run<{ cpuMicros: number; wallMs: number }>({
          kind: 'cpu',
          request,
          subjects: SUBJECTS,
          batch,
          rounds: Math.ceil(checks / batch),
        })) as { cpuMicros: number; wallMs: number };
        const primary = micros(process.cpuUsage(cpu)) / checks;
        const row = {
          serialization,
          batch,
          worker: spent.cpuMicros / checks,
          primary,
          total: spent.cpuMicros / checks + primary,
          wallMicros: (spent.wallMs * 1000) / checks,
        };
        if (best === undefined || row.total < best.total) best = row;
      }
      rows.push(best as Row);
      log(`${serialization} batch ${batch}: ${JSON.stringify(best)}`);
    }
  } finally {
    await stopLimitsWorkers(workers);
  }
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] as number;

interface GatewayRow {
  workers: number;
  primary: number;
  workersCpu: number;
  rps: number;
}
const gatewayRows: GatewayRow[] = [];
const skip = wrkSkipReason();
if (skip !== false) log(`gateway figures skipped: ${skip}`);
else {
  const dir = mkdtempSync(join(tmpdir(), 'bench-limits-ipc-'));
  const services: Service[] = [];
  try {
    const keys = await makeKeys(dir, 0);
    const core = await startService('core', 'core', { LOG_LEVEL: 'info' });
    services.push(core);
    for (const workers of [1, 2]) {
      const gateway = await startService(`gateway-${workers}`, 'gateway', {
        UPSTREAM_URL: core.url,
        LOG_LEVEL: 'info',
        JWKS_FILE: keys.jwksFile,
        REVOCATIONS_FILE: keys.revocationsFile,
        RATE_LIMITS: 'on',
        PLANS_FILE: join(dir, 'plans.json'),
        WORKERS: String(workers),
      });
      services.push(gateway);
      const pid = gateway.pid as number;
      const load = (s: number) => runWrk({ url: `${gateway.url}/v1/pets`, headers: { authorization: `Bearer ${keys.oneKey}` }, connections: 25, seconds: s });
      await load(2);
      const samples: GatewayRow[] = [];
      for (let round = 0; round < rounds; round++) {
        const children = childPids(pid);
        const before = { primary: processCpuMs(pid), workers: children.reduce((sum, child) => sum + processCpuMs(child), 0) };
        const result = await load(seconds);
        const after = { primary: processCpuMs(pid), workers: children.reduce((sum, child) => sum + processCpuMs(child), 0) };
        const sample = {
          workers,
          primary: ((after.primary - before.primary) * 1000) / result.requests,
          workersCpu: ((after.workers - before.workers) * 1000) / result.requests,
          rps: result.rps,
        };
        log(`WORKERS=${workers} round ${round + 1}: ${JSON.stringify(sample)}`);
        samples.push(sample);
      }
      gatewayRows.push({
        workers,
        primary: median(samples.map((s) => s.primary)),
        workersCpu: median(samples.map((s) => s.workersCpu)),
        rps: median(samples.map((s) => s.rps)),
      });
    }
  } finally {
    await Promise.all(services.map((service) => service.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

const f = (n: number) => n.toFixed(2);
const lines = [
  `# A limit check through the primary: CPU µs per check (best of ${REPEATS} runs of ${checks.toLocaleString('en')} checks, ${SUBJECTS} accounts)`,
  '',
  `Node ${process.version}, ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, load average at the end ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
  '',
  '| serialization | batch | worker | primary | both | wall µs/check | in process (own limiter) |',
  '|---|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) => `| ${r.serialization} | ${r.batch} | ${f(r.worker)} | ${f(r.primary)} | ${f(r.total)} | ${f(r.wallMicros)} | ${f(local[r.batch] as number)} |`,
  ),
];
if (gatewayRows.length > 0) {
  lines.push(
    '',
    `The gateway, limits in process, wrk -c25 on one key (medians of ${rounds} runs of ${seconds} s): CPU µs per request`,
    '',
    '| WORKERS | primary (the limits) | workers | req/s |',
    '|---:|---:|---:|---:|',
    ...gatewayRows.map((r) => `| ${r.workers} | ${r.primary.toFixed(1)} | ${r.workersCpu.toFixed(1)} | ${r.rps.toFixed(0)} |`),
  );
}
log(`\n${lines.join('\n')}`);
if (values.record === true) {
  const file = join(import.meta.dirname, 'results', `limits-ipc-${new Date().toISOString().replaceAll(':', '-').replace('.', '-')}.md`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  log(`written to ${file}`);
}
