// `npm run bench:layers [-- --rounds n] [--seconds s] [--record]`: what issue 21's layers cost per
// request over one plan's windows, keys and limits in Redis. Three gateways on one Redis and one
// core: `plan` (the plan's minute and day), `control` (the same again: the noise of the run) and
// `layers` (the same plan with a monthly quota and a cost on the benched operation, and that
// operation's ceiling for all callers; every limit too high to be reached). Loaded in pairs with
// `plan`, in alternating rounds (lib/paired.ts). The goal: `layers` at most 5 % over `plan`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startRedis } from '@animal-store/testkit';
import { makeKeys } from './lib/bench-keys.js';
import { measurePaired, pairedSkipReason, type PairedGateway } from './lib/paired.js';
import { roundLine } from './lib/paired-summary.js';
import { startService, type Service } from './lib/services.js';
import { wrkSkipReason } from './lib/wrk.js';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, seconds: { type: 'string' }, record: { type: 'boolean' } } });
const rounds = Number(values.rounds ?? 6);
const seconds = Number(values.seconds ?? 5);
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(seconds) || seconds < 1) throw new Error('--rounds and --seconds take whole numbers ≥ 1');
for (const skip of [pairedSkipReason(), wrkSkipReason()]) if (skip !== false) throw new Error(skip);

const log = (line: string) => process.stdout.write(`${line}\n`);
const dir = mkdtempSync(join(tmpdir(), 'bench-layers-'));
const started: Service[] = [];
const redis = await startRedis();
try {
  const keys = await makeKeys(dir, 0);
  const core = await startService('core', 'core', { LOG_LEVEL: 'info' });
  started.push(core);
  const env = { UPSTREAM_URL: core.url, LOG_LEVEL: 'info', JWKS_FILE: keys.jwksFile, RATE_LIMITS: 'on', REDIS_URL: redis.url };
  const start = async (name: string, plans: string): Promise<PairedGateway> => {
    const service = await startService(name, 'gateway', { ...env, PLANS_FILE: join(dir, plans) });
    started.push(service);
    return { name, service };
  };
  const gateways = [await start('plan', 'plans.json'), await start('control', 'plans.json'), await start('layers', 'plans-layered.json')];
  const paired = await measurePaired({
    gateways,
    baseline: 'plan',
    path: '/v1/pets',
    headers: { authorization: `Bearer ${keys.oneKey}` },
    rounds,
    seconds,
    onRound: (round, samples) => log(`  ${roundLine(round, samples)}`),
  });
  const of = (name: string) => paired.gateways.find((gateway) => gateway.name === name);
  const lines = [
    `# What the layers cost over one plan's windows (keys and limits in Redis, ${rounds} rounds of ${seconds} s, ${paired.tool})`,
    '',
    '| gateway | CPU µs/request | capacity ÷ plan | over plan |',
    '|---|---:|---:|---:|',
    ...['plan', 'control', 'layers'].map((name) => {
      const figures = of(name);
      const ratio = figures?.capacityRatio ?? 1;
      return `| ${name} | ${figures?.cpuUsPerRequest.toFixed(1)} | ${ratio.toFixed(3)} | ${((1 / ratio - 1) * 100).toFixed(1)} % |`;
    }),
    '',
    `machine: Node ${process.version}, ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, load at start ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  ];
  log(`\n${lines.join('\n')}`);
  if (values.record === true) {
    const file = join(import.meta.dirname, 'results', `layers-${new Date().toISOString().replaceAll(':', '-').replace('.', '-')}`);
    writeFileSync(`${file}.md`, `${lines.join('\n')}\n`);
    writeFileSync(`${file}.json`, `${JSON.stringify({ rounds, seconds, paired }, null, 2)}\n`);
    log(`written to ${file}.md and .json`);
  }
} finally {
  await Promise.all(started.map((service) => service.stop()));
  await redis.close();
  rmSync(dir, { recursive: true, force: true });
}
