import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startGateway, startLimitedStack, writePlansFile, type LimitedStack, type RunningGateway } from './support/index.js';

// Issue 29, point 14: an account the plans file moves to another plan was limited under that plan
// while its backend still read the key's plan in X-Api-Plan.

describe('X-Api-Plan names the plan the gateway enforces for the account', () => {
  let stack: LimitedStack;
  let gateway: RunningGateway;
  const file = writePlansFile();
  const shipped = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const moveTo = (plan: string) => writeFileSync(file, JSON.stringify({ ...shipped, accounts: { moved: { plan } } }));
  let moved: string;
  let unmoved: string;
  /** The plan the upstream was told, and the limit the client was told, for one request of `token`. */
  const seen = async (token: string) => {
    const res = await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    const { headers } = (await res.json()) as { headers: Record<string, string> };
    return { plan: headers['x-api-plan'], limit: res.headers.get('x-ratelimit-limit') };
  };

  before(async () => {
    stack = await startLimitedStack({ redis: false });
    moveTo('free');
    gateway = await startGateway({ ...stack.env, PLANS_FILE: file });
    moved = (await stack.keyring.issue({ plan: 'pro', sub: 'moved' })).token;
    unmoved = (await stack.keyring.issue({ plan: 'pro', sub: 'unmoved' })).token;
  });
  after(async () => {
    await gateway?.close();
    await stack?.close();
  });

  test("a pro key of an account moved to free: the backend reads free, the plan the client's limits are", async () => {
    assert.deepEqual(await seen(moved), { plan: 'free', limit: '60' });
    assert.deepEqual(await seen(unmoved), { plan: 'pro', limit: '300' });
  });

  test('moved again while the gateway runs: the next request says so', async () => {
    moveTo('business');
    assert.deepEqual(await seen(moved), { plan: 'business', limit: '1000' });
    assert.deepEqual(await seen(unmoved), { plan: 'pro', limit: '300' });
  });
});
