// `npx tsx bench/observability-ab.ts [--rounds n] [--seconds s]`: the paired measurement of the
// "Operable" goals without the rest of `npm run bench`. The full pipeline on Redis with metrics
// and tracing off is loaded together with, in turn, a second one alike (the control), one with
// metrics on (/metrics scraped every second), one with tracing exported and one exporting one
// trace in ten (default 6 rounds × 5 s a pairing, see lib/paired.ts); each pairing's figures, the
// medians and the capacity ratios to `off` are printed. The report of record is still
// `npm run bench` (the same measurement, through the same module).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startRedis } from '@animal-store/testkit';
import { generateSigningKey, signApiKey } from '@animal-store/gateway';
import { measureObservability, startObservedGateways } from './lib/observability.js';
import { roundLine } from './lib/paired-summary.js';
import { startService } from './lib/services.js';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, seconds: { type: 'string' } } });
const rounds = Number(values.rounds ?? 6);
const seconds = Number(values.seconds ?? 5);
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(seconds) || seconds < 1) throw new Error('--rounds and --seconds take whole numbers ≥ 1');
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
const control = await startService('gateway (metrics and tracing off, control)', 'gateway', env);
const observed = await startObservedGateways(env);
try {
  for (let i = 0; i < 20; i++) {
    await fetch(`${core.url}/v1/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `pet-${i}`, categoryId: 1 + (i % 4), status: 'available' }),
    });
  }
  const result = await measureObservability(
    { off, control, observed },
    {
      headers: { authorization: `Bearer ${key}` },
      rounds,
      seconds,
      warmupSeconds: 5,
      onRound: (round, samples) => process.stdout.write(`${roundLine(round, samples)}\n`),
    },
  );
  process.stdout.write(
    `${result.tool}, ${result.connections} connections per gateway, each loaded together with off in turn; medians of ${rounds} rounds × ${seconds} s:\n`,
  );
  for (const g of result.gateways) {
    process.stdout.write(
      `  ${g.name.padEnd(8)} ${g.cpuUsPerRequest.toFixed(1)} µs/req, ${Math.round(g.rps)} req/s; capacity ÷ off ${g.capacityRatio.toFixed(3)} (median of the rounds' ratios; ratio of the medians ${g.ratioOfMedians.toFixed(3)}), req/s ÷ off ${g.rpsRatio.toFixed(3)}\n`,
    );
  }
  const ratio = (name: string) => result.gateways.find((g) => g.name === name)?.capacityRatio.toFixed(3);
  process.stdout.write(
    `capacity ratio (CPU µs per request, off ÷ observed): metrics on ${ratio('metrics')} (goal ≥ 0.97), tracing exported ${ratio('tracing')} (goal ≥ 0.85), one trace in ten ${ratio('sampled')}, control ${ratio('control')} (identical to off: the noise of this run); ${observed.exports()} OTLP exports received\n`,
  );
  if (observed.exports() === 0) throw new Error('the tracing gateway exported no spans to the sink');
} finally {
  await observed.close();
  await Promise.all([off.stop(), control.stop()]);
  await core.stop();
  await redis.close();
  rmSync(dir, { recursive: true, force: true });
}
