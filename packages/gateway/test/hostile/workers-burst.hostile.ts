import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason, startCpuHog, type CpuHog } from '@animal-store/testkit';
import { Agent, request } from 'undici';
import { accessLinesOf, byWorker, type AccessLine } from '../support/access-lines.js';
import { startGatewayProcess, waitUntilReady } from '../support/index.js';
import { startStack, type Stack } from './stack.js';

// Issue 30, point 2, the hostile half: one gateway of two workers (WORKERS=2) in front of the
// core, its limits in process (kept by its primary), and another on Redis; 20 rounds of a burst
// of 3,000 parallel requests on a fresh free key (60 a minute) to each, both at once, on a quiet
// host, then 20 more with every core kept busy by a CPU hog. (The gateways start before the hog,
// to keep the file within a few minutes: a cold start under the hog is burst.hostile.ts's.) Each burst must admit exactly 60, every
// other answer a 429, and both workers must have answered some of its requests.
// (packages/gateway/test/ratelimit-workers.test.ts holds 5 bursts of each in `npm test`.)

const BURSTS = 20;
const REQUESTS = 3000;

interface Gateway {
  readonly url: string;
  accessLines(subject: string, count: number): Promise<AccessLine[]>;
  stop(): Promise<unknown>;
}

/** The gateway process with two workers, ready (`/readyz`), its access log read as it comes. */
async function startWorkers(env: Record<string, string>): Promise<Gateway> {
  const gateway = await startGatewayProcess({ LOG_LEVEL: 'info', ...env, WORKERS: '2' });
  await waitUntilReady(gateway.url, 60_000);
  return { url: gateway.url, accessLines: accessLinesOf(gateway), stop: () => gateway.stop('SIGTERM', 10_000) };
}

async function burst(url: string, token: string): Promise<Record<number, number>> {
  const dispatcher = new Agent({ keepAliveTimeout: 1000 });
  try {
    const statuses = await Promise.all(
      Array.from({ length: REQUESTS }, () =>
        request(`${url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${token}` }, dispatcher }).then(
          async (res) => (await res.body.arrayBuffer(), res.statusCode),
          () => 0,
        ),
      ),
    );
    const counts: Record<number, number> = {};
    for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  } finally {
    await dispatcher.close();
  }
}

describe('hostile: exact bursts across the workers of one gateway (WORKERS=2)', { skip: redisSkipReason() }, () => {
  let stack: Stack;
  const gateways: Record<'process' | 'redis', Gateway | undefined> = { process: undefined, redis: undefined };

  before(async () => {
    stack = await startStack({ gateways: 0 });
    const { REDIS_URL: _redis, ...inProcess } = stack.gatewayEnv;
    gateways.process = await startWorkers(inProcess);
    gateways.redis = await startWorkers(stack.gatewayEnv);
  });
  after(async () => {
    for (const gateway of Object.values(gateways)) await gateway?.stop();
    await stack?.close();
  });

  /** `BURSTS` rounds of a burst on each gateway at once; the bursts that were not exact over both workers. */
  async function rounds(phase: string): Promise<string[]> {
    const wrong: string[] = [];
    for (let i = 0; i < BURSTS; i++) {
      await Promise.all(
        (['process', 'redis'] as const).map(async (where) => {
          const gateway = gateways[where] as Gateway;
          const sub = `workers-${where}-${phase}-${i}`;
          const { token } = await stack.keyring.issue({ plan: 'free', sub });
          const started = performance.now();
          const counts = await burst(gateway.url, token);
          const workers = byWorker(await gateway.accessLines(sub, REQUESTS));
          const line = `${where}: ${JSON.stringify(counts)} in ${((performance.now() - started) / 1000).toFixed(1)} s, by worker ${JSON.stringify([...workers.values()])}`;
          console.log(`# ${phase} round ${i + 1}, ${line}`);
          if (counts[200] !== 60 || counts[429] !== REQUESTS - 60 || workers.size !== 2) wrong.push(`round ${i + 1}, ${line}`);
        }),
      );
    }
    return wrong;
  }

  test(
    `quiet host: ${BURSTS} rounds of a burst of ${REQUESTS} on each gateway at once, in process and in Redis, each exactly 60`,
    { timeout: 600_000 },
    async () => {
      const wrong = await rounds('quiet');
      assert.deepEqual(wrong, [], `${wrong.length} of ${2 * BURSTS} bursts were not exact over both workers`);
    },
  );

  test(`every core busy with a CPU hog: the same ${BURSTS} rounds, each exactly 60`, { timeout: 900_000 }, async () => {
    const hog: CpuHog = startCpuHog({ maxMs: 600_000 });
    try {
      const wrong = await rounds('hog');
      assert.deepEqual(wrong, [], `${wrong.length} of ${2 * BURSTS} bursts were not exact over both workers`);
    } finally {
      await hog.stop();
    }
  });
});
