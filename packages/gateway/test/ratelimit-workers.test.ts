import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { burst, redisSkipReason, waitForReady } from '@animal-store/testkit';
import { accessLinesOf, byWorker, type AccessLine } from './support/access-lines.js';
import { startGatewayProcess, startLimitedStack, writePlansFile, type GatewayProcess, type LimitedStack } from './support/index.js';

// Issue 30, point 2: one gateway process with two workers (WORKERS=2), its limits exact across
// them as if it were one process. Without Redis the primary keeps the counters and every worker
// asks it; with Redis every worker asks Redis, as instances do. Each burst is 3,000 requests at
// once on fresh connections, which the workers share between them (the access log says which
// worker answered each: both did).

const REPETITIONS = 5;

interface Gateway {
  readonly url: string;
  readonly process: GatewayProcess;
  /** `subject`'s access-log lines, once `count` were written. */
  accessLines(subject: string, count: number): Promise<AccessLine[]>;
  stop(): Promise<unknown>;
}

/** The gateway process with two workers, ready (`/readyz`), its access log read as it comes. */
async function startWorkers(env: Record<string, string>): Promise<Gateway> {
  const gateway = await startGatewayProcess({ LOG_LEVEL: 'info', ...env, WORKERS: '2' });
  await waitForReady(gateway.url, 30_000);
  return { url: gateway.url, process: gateway, accessLines: accessLinesOf(gateway), stop: () => gateway.stop('SIGTERM', 10_000) };
}

async function usageOf(url: string, token: string): Promise<{ minute: number | undefined; day: number | undefined }> {
  const res = await fetch(`${url}/v1/usage`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  const usage = (await res.json()) as { windows: Record<string, { remaining: number }> };
  return { minute: usage.windows.minute?.remaining, day: usage.windows.day?.remaining };
}

/** `REPETITIONS` bursts on fresh free keys: each exactly 60, served by both workers, `/v1/usage` agreeing. */
async function exactBursts(gateway: Gateway, stack: LimitedStack, name: string): Promise<void> {
  for (let i = 0; i < REPETITIONS; i++) {
    const sub = `${name}-${i}`;
    const { token } = await stack.keyring.issue({ plan: 'free', sub });
    const counts = await burst([gateway.url], 3000, token);
    const workers = byWorker(await gateway.accessLines(sub, 3000));
    console.log(`# ${name} burst ${i + 1}: ${JSON.stringify(counts)}, by worker ${JSON.stringify(Object.fromEntries(workers))}`);
    assert.deepEqual(counts, { 200: 60, 429: 2940 }, `burst ${i + 1}`);
    assert.equal(workers.size, 2, `burst ${i + 1}: both workers answered some of its requests`);
    assert.deepEqual(await usageOf(gateway.url, token), { minute: 0, day: 940 }, `burst ${i + 1}: /v1/usage`);
  }
}

describe('limits in process, exact across the workers of one gateway (WORKERS=2, no Redis)', () => {
  let stack: LimitedStack;
  const gateways: Gateway[] = [];
  before(async () => {
    stack = await startLimitedStack({ redis: false });
  });
  after(async () => {
    for (const gateway of gateways) await gateway.stop();
    await stack?.close();
  });

  test(`3,000 parallel requests on a free key admit exactly 60, ${REPETITIONS} times`, { timeout: 120_000 }, async () => {
    const gateway = await startWorkers(stack.env);
    gateways.push(gateway);
    await exactBursts(gateway, stack, 'in-process');
  });

  test("the counters are the primary's: a worker killed, then a reload (SIGHUP), and the key still has 30 of 60 left", { timeout: 60_000 }, async () => {
    const gateway = await startWorkers(stack.env);
    gateways.push(gateway);
    const { token } = await stack.keyring.issue({ plan: 'free', sub: 'outlives' });
    assert.deepEqual(await burst([gateway.url], 30, token), { 200: 30 });
    const [victim] = gateway.process.workerPids;
    process.kill(victim as number, 'SIGKILL');
    await gateway.process.waitForRecord((record) => record.msg === 'worker replaced');
    assert.deepEqual(await usageOf(gateway.url, token), { minute: 30, day: 970 }, 'after a worker died');
    const from = gateway.process.records().length;
    gateway.process.child.kill('SIGHUP');
    await gateway.process.waitForRecord((record) => record.msg === 'gateway reloaded', 30_000, from);
    assert.deepEqual(await usageOf(gateway.url, token), { minute: 30, day: 970 }, 'after a reload');
    assert.deepEqual(await burst([gateway.url], 100, token), { 200: 30, 429: 70 });
  });

  test('a shadow plan: all 3,000 admitted, exactly 60 charged, the other 2,940 admitted in shadow', { timeout: 60_000 }, async () => {
    const gateway = await startWorkers({ ...stack.env, SHADOW_PLANS: 'free' });
    gateways.push(gateway);
    const { token } = await stack.keyring.issue({ plan: 'free', sub: 'shadow-burst' });
    assert.deepEqual(await burst([gateway.url], 3000, token), { 200: 3000 });
    const lines = await gateway.accessLines('shadow-burst', 3000);
    const decisions: Record<string, number> = {};
    for (const line of lines) decisions[line.decision ?? 'none'] = (decisions[line.decision ?? 'none'] ?? 0) + 1;
    assert.deepEqual(decisions, { allowed: 60, shadow_limited: 2940 });
    assert.equal(byWorker(lines).size, 2);
    assert.deepEqual(await usageOf(gateway.url, token), { minute: 0, day: 940 });
  });

  test('an operation ceiling of 250: three business keys × 1,000 at once admit exactly 250', { timeout: 60_000 }, async () => {
    const plans = JSON.parse(readFileSync(writePlansFile(), 'utf8')) as object;
    const file = writePlansFile();
    writeFileSync(file, JSON.stringify({ ...plans, operations: { echoGet: { minute: 250 } } }));
    const gateway = await startWorkers({ ...stack.env, PLANS_FILE: file });
    gateways.push(gateway);
    const tokens = await Promise.all([1, 2, 3].map(async (i) => (await stack.keyring.issue({ plan: 'business', sub: `ceiling-${i}` })).token));
    const counts = await Promise.all(tokens.map((token) => burst([gateway.url], 1000, token)));
    const admitted = counts.reduce((sum, each) => sum + (each[200] ?? 0), 0);
    assert.deepEqual({ admitted, refused: counts.reduce((sum, each) => sum + (each[429] ?? 0), 0) }, { admitted: 250, refused: 2750 });
    const workers = new Set((await Promise.all([1, 2, 3].map((i) => gateway.accessLines(`ceiling-${i}`, 1000)))).flat().map((line) => line.pid));
    assert.equal(workers.size, 2);
  });
});

describe('limits in Redis, exact across the workers of one gateway (WORKERS=2)', { skip: redisSkipReason() }, () => {
  let stack: LimitedStack;
  let gateway: Gateway | undefined;
  before(async () => {
    stack = await startLimitedStack();
  });
  after(async () => {
    await gateway?.stop();
    await stack?.close();
  });

  test(`3,000 parallel requests on a free key admit exactly 60, ${REPETITIONS} times`, { timeout: 120_000 }, async () => {
    gateway = await startWorkers(stack.env);
    await exactBursts(gateway, stack, 'redis');
  });

  test("Redis gone, RATE_LIMIT_ON_REDIS_FAILURE=local: the gateway's share is one share, not one per worker", { timeout: 60_000 }, async () => {
    const { token } = await stack.keyring.issue({ plan: 'business', sub: 'local-share' });
    await stack.redis?.stop('SIGKILL');
    // 1,000 a minute at the default share of 0.5: 500 for the gateway, whatever its workers.
    const counts = await burst([(gateway as Gateway).url], 3000, token);
    const workers = byWorker(await (gateway as Gateway).accessLines('local-share', 3000));
    console.log(`# Redis down: ${JSON.stringify(counts)}, by worker ${JSON.stringify(Object.fromEntries(workers))}`);
    assert.deepEqual(counts, { 200: 500, 429: 2500 });
    assert.equal(workers.size, 2);
  });
});
