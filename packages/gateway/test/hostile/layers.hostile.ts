import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { redisSkipReason, startCpuHog, temporaryDir, type CpuHog } from '@animal-store/testkit';
import { REPETITIONS } from './repetitions.js';
import { burstOnStack, startStack, type Stack } from './stack.js';

// Issue 21 under the hostile suite's burst: units and operation ceilings are as exact across two
// gateway processes on one Redis as requests are, with every core kept busy. REPETITIONS bursts
// (repetitions.ts) of 3,000 parallel requests, each on a fresh business account (1,000 units a
// minute) whose listPets costs 5, so the plan admits 200; listPets has a ceiling for all
// callers, raised before each burst (a changed plans file applies at the next request): by 1,000
// before the even bursts, so the plan binds (200 admitted), and by 150 before the odd ones, so the
// ceiling binds (150).
const SHIPPED = fileURLToPath(new URL('../../plans/plans.json', import.meta.url));
const BURSTS = REPETITIONS;
const REQUESTS = 3000;

describe('hostile layers: a cost of 5 and a shared ceiling, over two gateway processes under a CPU hog', { skip: redisSkipReason() }, () => {
  let stack: Stack;
  let hog: CpuHog;
  const plansFile = join(temporaryDir('hostile-layers-'), 'plans.json');
  const shipped = JSON.parse(readFileSync(SHIPPED, 'utf8')) as { plans: Record<string, object> };
  const writePlans = (ceiling: number) =>
    writeFileSync(
      plansFile,
      JSON.stringify({
        ...shipped,
        plans: { ...shipped.plans, business: { minute: 1000, day: 100000, cost: { listPets: 5 } } },
        operations: { listPets: { day: ceiling } },
      }),
    );

  before(async () => {
    hog = startCpuHog({ maxMs: 600_000 });
    writePlans(0);
    stack = await startStack({ gateways: 2, env: { PLANS_FILE: plansFile } });
  });
  after(async () => {
    await stack?.close();
    await hog?.stop();
  });

  test(`${BURSTS} bursts of ${REQUESTS}: exactly 200 (the plan, in units) or 150 (the ceiling) admitted each time`, { timeout: 600_000 }, async () => {
    let admitted = 0;
    const wrong: string[] = [];
    for (let i = 0; i < BURSTS; i++) {
      const expected = i % 2 === 0 ? 200 : 150;
      writePlans(admitted + (i % 2 === 0 ? 1000 : 150));
      const { token } = await stack.keyring.issue({ plan: 'business', sub: `hostile-layers-${i}` });
      const started = performance.now();
      const counts = await burstOnStack(stack, REQUESTS, token);
      console.log(`# burst ${i + 1}, ${expected} expected: ${JSON.stringify(counts)} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      if (counts[200] !== expected || counts[429] !== REQUESTS - expected) wrong.push(`burst ${i + 1}: ${JSON.stringify(counts)}, ${expected} expected`);
      admitted += counts[200] ?? 0;
    }
    assert.deepEqual(wrong, [], `${wrong.length} of ${BURSTS} bursts were not exact`);
  });
});
