import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason } from '@animal-store/testkit';
import { PROXY_TEST_PATHS, startGateway, startLimitedStack, writeDocument, writePlansFile, type LimitedStack, type RunningGateway } from './support/index.js';

// Issue 29, point 7: GET /v1/usage with thousands of operation ceilings. Its headers are the
// plan's own windows only (they were every ceiling's: 169 KB with 3,000, which Node's client and
// fetch refuse past 16 KB); the body lists every ceiling.

const CEILINGS = 3_000;
const HEADER_LIMIT = 16 * 1024;

for (const store of ['memory', 'redis'] as const) {
  describe(
    `GET /v1/usage with ${CEILINGS} ceilings, limits ${store === 'redis' ? 'in Redis' : 'in process'}`,
    { skip: store === 'redis' ? redisSkipReason() : false },
    () => {
      let stack: LimitedStack;
      let gateway: RunningGateway;

      before(async () => {
        stack = await startLimitedStack({ redis: store === 'redis' });
        const paths: Record<string, Record<string, Record<string, unknown>>> = { ...PROXY_TEST_PATHS };
        const operations: Record<string, { minute: number }> = {};
        for (let i = 0; i < CEILINGS; i++) {
          paths[`/op/${i}`] = { get: { operationId: `operation${i}` } };
          operations[`operation${i}`] = { minute: 1000 + i };
        }
        const plans = writePlansFile();
        writeFileSync(plans, JSON.stringify({ ...JSON.parse(readFileSync(plans, 'utf8')), operations }));
        gateway = await startGateway({ ...stack.env, OPENAPI_FILE: writeDocument(paths), PLANS_FILE: plans, REDIS_COMMAND_TIMEOUT_MS: '5000' });
      });
      after(async () => {
        await gateway?.close();
        await stack?.close();
      });

      test("its headers are the plan's windows, under 16 KB; fetch reads it; the body lists every ceiling", async (t) => {
        const { token } = await stack.keyring.issue({ plan: 'pro', sub: `ceilings-${store}` });
        const res = await fetch(`${gateway.url}/v1/usage`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(res.status, 200);
        const head = [...res.headers].reduce((bytes, [name, value]) => bytes + name.length + value.length + 4, 0);
        assert.ok(head < HEADER_LIMIT, `${head} bytes of headers`);
        assert.equal(res.headers.get('ratelimit-policy'), '"minute";q=300;w=60, "day";q=10000;w=86400');
        assert.match(res.headers.get('ratelimit') ?? '', /^"minute";r=300;t=\d+, "day";r=10000;t=\d+$/);
        assert.equal(res.headers.get('x-ratelimit-limit'), '300', 'the plan’s window closest to refusing, not a ceiling');
        const text = await res.text();
        const timings: number[] = [];
        for (let i = 0; i < 5; i++) {
          const started = performance.now();
          await (await fetch(`${gateway.url}/v1/usage`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer();
          timings.push(performance.now() - started);
        }
        t.diagnostic(`${CEILINGS} ceilings: a body of ${text.length} bytes, answered in ${timings.map((ms) => ms.toFixed(1)).join(', ')} ms`);
        const body = JSON.parse(text) as { windows: Record<string, unknown>; operations: Record<string, { minute: { limit: number; remaining: number } }> };
        assert.deepEqual(Object.keys(body.windows), ['minute', 'day']);
        assert.equal(Object.keys(body.operations).length, CEILINGS);
        assert.deepEqual([body.operations.operation2999?.minute.limit, body.operations.operation2999?.minute.remaining], [3999, 3999]);
      });
    },
  );
}
