// `npm run bench:steps [-- --rounds n] [--seconds s] [--accounts one|uniform] [--record]`: what each step of the request path
// costs, in CPU µs per request. Gateways that differ by one step each are loaded together with the
// bare gateway, in alternating rounds (lib/paired.ts); a step's cost is the difference between the
// two gateways that differ by it, from the per-round differences to the bare one. The floor (a
// node:http server and an undici pool, nothing else: floor-proxy/main.ts) says what any proxy
// built like the gateway pays. A control (a second bare gateway) says what the method resolves.
// Every gateway gets the same request, a valid key included (the bare ones forward it unread):
// one account's key, or with `--accounts uniform` a key per request from 2,000 accounts of 1,000 a
// minute (issue 40: no leases, every limited request decided in Redis), each key verified once by
// every gateway before the rounds.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startRedis } from '@animal-store/testkit';
import { SPREADS } from './lib/accounts.js';
import { makeKeys } from './lib/bench-keys.js';
import { makeSpreadKeys } from './lib/spread-keys.js';
import { sendEveryKey } from './lib/warm-up.js';
import { startFloorProxy } from './lib/floor-proxy.js';
import { measurePaired, pairedSkipReason, type PairedGateway } from './lib/paired.js';
import { roundLine } from './lib/paired-summary.js';
import { startService, type Service } from './lib/services.js';
import { STEPS, stepCostReport } from './lib/step-costs-report.js';
import { startObservedGateways } from './lib/observability.js';
import { wrkSkipReason } from './lib/wrk.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string' }, seconds: { type: 'string' }, accounts: { type: 'string' }, record: { type: 'boolean' } },
});
const rounds = Number(values.rounds ?? 4);
const seconds = Number(values.seconds ?? 5);
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(seconds) || seconds < 1) throw new Error('--rounds and --seconds take whole numbers ≥ 1');
const accounts = values.accounts ?? 'one';
if (accounts !== 'one' && accounts !== 'uniform') throw new Error(`--accounts: one or uniform, not ${accounts}`);
for (const skip of [pairedSkipReason(), wrkSkipReason()]) if (skip !== false) throw new Error(skip);

const log = (line: string) => process.stdout.write(`${line}\n`);
const dir = mkdtempSync(join(tmpdir(), 'bench-steps-'));
const started: Service[] = [];
const redis = await startRedis();
let scraper: NodeJS.Timeout | undefined;
let observed: Awaited<ReturnType<typeof startObservedGateways>> | undefined;
try {
  const keys = await makeKeys(dir, 0);
  const rotation =
    accounts === 'uniform'
      ? (await makeSpreadKeys(dir, [SPREADS.uniform], { claimsOf: keys.claimsOf, gateway: keys.sign }, 500_000)).uniform?.gateway
      : undefined;
  const core = await startService('core', 'core', { LOG_LEVEL: 'info' });
  started.push(core);
  const bare = { UPSTREAM_URL: core.url, LOG_LEVEL: 'info', AUTH: 'off', RATE_LIMITS: 'off' };
  const keyed = { UPSTREAM_URL: core.url, LOG_LEVEL: 'info', JWKS_FILE: keys.jwksFile, REVOCATIONS_FILE: keys.revocationsFile, RATE_LIMITS: 'off' };
  const limited = { ...keyed, RATE_LIMITS: 'on', PLANS_FILE: join(dir, 'plans.json') };
  const onRedis = { REDIS_URL: redis.url, REVOCATIONS_FILE: '' };
  const start = async (name: string, env: Record<string, string>): Promise<PairedGateway> => {
    const service = await startService(name, 'gateway', env);
    started.push(service);
    return { name, service };
  };
  const floor = await startFloorProxy(core.url);
  started.push(floor);
  observed = await startObservedGateways({ ...limited, ...onRedis });
  const gateways: PairedGateway[] = [
    await start('bare', bare),
    await start('control', bare),
    { name: 'floor', service: floor },
    await start('no-log', { ...bare, LOG_LEVEL: 'warn' }),
    await start('keys', keyed),
    await start('limits-memory', limited),
    await start('keys-redis', { ...keyed, ...onRedis }),
    await start('limits-redis', { ...limited, ...onRedis }),
    await start('layers-redis', { ...limited, ...onRedis, PLANS_FILE: join(dir, 'plans-layered.json') }),
    { name: 'metrics', service: observed.metrics },
    { name: 'tracing-1-in-10', service: observed.sampled },
  ];
  // Prometheus's default: one scrape every 15 s, for the whole run.
  const metricsUrl = observed.metricsUrl;
  scraper = setInterval(
    () =>
      void fetch(metricsUrl).then(
        (res) => res.text(),
        () => '',
      ),
    15_000,
  );
  if (rotation !== undefined) {
    log(`every gateway verifies each of the ${SPREADS.uniform.accounts.toLocaleString('en')} accounts' keys once`);
    for (const { service } of gateways)
      await sendEveryKey(`${service.url}/v1/pets`, rotation, { connections: 25, pipelining: 1, durationSeconds: 1, warmupSeconds: 0 });
  }
  const paired = await measurePaired({
    gateways,
    baseline: 'bare',
    path: '/v1/pets',
    ...(rotation === undefined ? { headers: { authorization: `Bearer ${keys.oneKey}` } } : { keys: rotation }),
    rounds,
    seconds,
    onRound: (round, samples) => log(`  ${roundLine(round, samples)}`),
  });
  const report = stepCostReport({
    rounds,
    seconds,
    accounts: rotation === undefined ? 'one account (one key for every request)' : `${SPREADS.uniform.label}, a key per request`,
    machine: { node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, loadavgAtStart: loadavg() },
    paired,
  });
  log(`\n${report.text}`);
  if (values.record === true) {
    const file = join(
      import.meta.dirname,
      'results',
      `steps${rotation === undefined ? '' : '-2000-uniform'}-${new Date().toISOString().replaceAll(':', '-').replace('.', '-')}`,
    );
    writeFileSync(`${file}.md`, report.text);
    writeFileSync(`${file}.json`, `${JSON.stringify(report.json, null, 2)}\n`);
    log(`written to ${file}.md and .json (steps: ${STEPS.length})`);
  }
} finally {
  clearInterval(scraper);
  await observed?.close();
  await Promise.all(started.map((service) => service.stop()));
  await redis.close();
  rmSync(dir, { recursive: true, force: true });
}
