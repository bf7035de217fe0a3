import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason } from '@animal-store/testkit';
import { startGateway, startLimitedStack, writePlansFile, type LimitedStack, type RunningGateway } from './support/index.js';

// Issue 29, point 17: once an address has spent its budget for requests without a valid key or
// operation, a mistyped path with a valid key is refused under that budget: the answer says so
// (code, message, problem type), and a key's own refusal is unchanged.

const PROBLEM = { accept: 'application/problem+json' };

for (const store of ['memory', 'redis'] as const) {
  describe(
    `the per-address budget's refusal, ${store === 'redis' ? 'in Redis' : 'in process'}`,
    { skip: store === 'redis' ? redisSkipReason() : false },
    () => {
      let stack: LimitedStack;
      let gateway: RunningGateway;

      before(async () => {
        stack = await startLimitedStack({ redis: store === 'redis' });
        gateway = await startGateway({
          ...stack.env,
          PLANS_FILE: writePlansFile({ plans: { free: { minute: 3, day: 100 } }, anonymous: { minute: 5, day: 100 } }),
        });
      });
      after(async () => {
        await gateway?.close();
        await stack?.close();
      });

      test('a mistyped path with a valid key, past the budget: anonymous_rate_limited, naming the budget', async () => {
        const { token } = await stack.keyring.issue({ plan: 'pro', sub: `typo-${store}` });
        const typo = () => fetch(`${gateway.url}/v1/ecoh`, { headers: { authorization: `Bearer ${token}` } });
        for (let i = 0; i < 5; i++) assert.equal((await typo()).status, 404);
        const refused = await typo();
        assert.equal(refused.status, 429);
        assert.ok(Number(refused.headers.get('retry-after')) >= 1);
        assert.deepEqual(await refused.json(), {
          code: 'anonymous_rate_limited',
          message:
            "Too many requests from this address without a valid API key or to no operation (5 a minute): this is the address's budget for such requests, not an API key's limit. Check the path and the key; retry after the time in Retry-After.",
          status: 429,
        });
        const problem = await fetch(`${gateway.url}/v1/ecoh`, { headers: { authorization: `Bearer ${token}`, ...PROBLEM } });
        assert.equal(problem.status, 429);
        const body = (await problem.json()) as Record<string, unknown>;
        assert.equal(body.type, 'tag:animal-store,2026:anonymous-budget-exceeded');
        assert.equal(body.title, 'Too many requests from this address without a valid API key or to no operation');
        assert.equal(body.code, 'anonymous_rate_limited');
        assert.deepEqual(body['violated-policies'], ['minute']);
        // The key itself is not limited: its operation still answers.
        assert.equal((await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
      });

      test("a key's own refusal is unchanged: rate_limited, quota-exceeded", async () => {
        const { token } = await stack.keyring.issue({ plan: 'free', sub: `own-${store}` });
        const call = (headers: Record<string, string> = {}) => fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}`, ...headers } });
        for (let i = 0; i < 3; i++) assert.equal((await call()).status, 200);
        const refused = await call();
        assert.equal(refused.status, 429);
        assert.deepEqual(await refused.json(), { code: 'rate_limited', message: 'Rate limit exceeded: retry after the time in Retry-After.', status: 429 });
        const problem = (await (await call(PROBLEM)).json()) as Record<string, unknown>;
        assert.equal(problem.type, 'https://iana.org/assignments/http-problem-types#quota-exceeded');
        assert.equal(problem.code, 'rate_limited');
      });
    },
  );
}
