// `npx tsx bench/observability-ab.ts [--rounds n] [--seconds s]`: a short paired run of the three
// gateways the "Operable" goals compare, without the rest of `npm run bench`: the full pipeline on
// Redis with metrics off, with metrics on (/metrics scraped every second) and with tracing
// exported. They alternate over the rounds (default 4 × 3 s); the medians' ratios are printed.
// The report of record is still `npm run bench` (same scenarios, same figures).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startRedis } from '@animal-store/testkit';
import { generateSigningKey, signApiKey } from '../packages/gateway/src/auth/index.js';
import { LOAD_SETTINGS, runLoad, type LoadResult } from './lib/load.js';
import { startObservedGateways, whileScraped } from './lib/observability.js';
import { startService } from './lib/services.js';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, seconds: { type: 'string' } } });
const rounds = Number(values.rounds ?? 4);
const settings = { ...LOAD_SETTINGS, durationSeconds: Number(values.seconds ?? 3) };
const dir = mkdtempSync(join(tmpdir(), 'bench-ab-'));
const redis = await startRedis();
const { privateJwk, publicJwk } = await generateSigningKey();
writeFileSync(join(dir, 'jwks.json'), JSON.stringify({ keys: [publicJwk] }));
const high = { minute: 1e9, day: 1e9 };
writeFileSync(join(dir, 'plans.json'), JSON.stringify({ plans: { free: high, pro: high, business: high, enterprise: high }, anonymous: high, accounts: {} }));
const key = await signApiKey(privateJwk, {
  issuer: 'animal-store',
  audience: 'animal-store-production',
  subject: 'ab',
  keyId: 'ab',
  plan: 'business',
  issuedAt: Date.now(),
});
const core = await startService('core', 'core', { LOG_LEVEL: 'info' });
const env = {
  UPSTREAM_URL: core.url,
  LOG_LEVEL: 'info',
  JWKS_FILE: join(dir, 'jwks.json'),
  RATE_LIMITS: 'on',
  PLANS_FILE: join(dir, 'plans.json'),
  REDIS_URL: redis.url,
};
const off = await startService('gateway (metrics and tracing off)', 'gateway', env);
const observed = await startObservedGateways(env);
try {
  for (let i = 0; i < 20; i++) {
    await fetch(`${core.url}/v1/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `pet-${i}`, categoryId: 1 + (i % 4), status: 'available' }),
    });
  }
  const headers = { authorization: `Bearer ${key}` };
  const load = (url: string, duration = settings.durationSeconds) =>
    runLoad({ url: `${url}/v1/pets`, settings: { ...settings, durationSeconds: duration }, headers });
  const targets: Record<string, () => Promise<LoadResult>> = {
    off: () => load(off.url),
    metrics: () => whileScraped(observed.metricsUrl, () => load(observed.metrics.url)),
    tracing: () => load(observed.tracing.url),
  };
  for (const url of [off.url, observed.metrics.url, observed.tracing.url]) await load(url, settings.warmupSeconds);
  const rps: Record<string, number[]> = { off: [], metrics: [], tracing: [] };
  for (let round = 1; round <= rounds; round++) {
    for (const [name, run] of Object.entries(targets)) {
      const result = await run();
      const unexpected = Object.entries(result.statuses).filter(([status]) => status !== '200');
      if (unexpected.length > 0 || result.errors > 0) throw new Error(`${name}: statuses ${JSON.stringify(result.statuses)}, ${result.errors} errors`);
      rps[name]?.push(result.rps);
      process.stdout.write(`round ${round} ${name.padEnd(8)} ${Math.round(result.rps)} req/s, p99 ${result.p99.toFixed(2)} ms\n`);
    }
  }
  const median = (list: readonly number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] as number;
  const base = median(rps.off ?? []);
  process.stdout.write(
    `metrics on ÷ off: ${(median(rps.metrics ?? []) / base).toFixed(2)} (goal ≥ 0.97); tracing exported ÷ off: ${(median(rps.tracing ?? []) / base).toFixed(2)} (goal ≥ 0.85); ${observed.exports()} OTLP exports received\n`,
  );
} finally {
  await observed.close();
  await off.stop();
  await core.stop();
  await redis.close();
  rmSync(dir, { recursive: true, force: true });
}
