import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { temporaryDir } from '@animal-store/testkit';
import { startGateway, startLimitedStack, type LimitedStack, type RunningGateway } from './support/index.js';

// Issue 39, point 3.1: plans are data, yet keys could name only free, pro, business or enterprise,
// and a plans file without those four was refused.

describe('plans by any name', () => {
  let stack: LimitedStack;
  let gateway: RunningGateway;
  const file = join(temporaryDir('gw-plans-any-'), 'plans.json');

  before(async () => {
    stack = await startLimitedStack({ redis: false });
    writeFileSync(
      file,
      JSON.stringify({ plans: { startup: { minute: 7, day: 100 }, 'scale-up': { minute: 70, day: 1000 } }, anonymous: { minute: 30, day: 1000 } }),
    );
    gateway = await startGateway({ ...stack.env, PLANS_FILE: file });
  });
  after(async () => {
    await gateway?.close();
    await stack?.close();
  });

  const call = (token: string) => fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } });

  test('a file without free, pro, business and enterprise is accepted; a key of its plan is limited by it', async () => {
    const { token } = await stack.keyring.issue({ plan: 'startup', sub: 'new-co' });
    const res = await call(token);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-ratelimit-limit'), '7');
    const { headers } = (await res.json()) as { headers: Record<string, string> };
    assert.equal(headers['x-api-plan'], 'startup');
  });

  test('limits signed into a key apply on any plan', async () => {
    const { token } = await stack.keyring.issue({ plan: 'scale-up', sub: 'signed-co', limits: { minute: 55 } });
    const res = await call(token);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-ratelimit-limit'), '55');
  });

  test('a key naming a plan the file lacks is refused (401), saying so', async () => {
    const { token } = await stack.keyring.issue({ plan: 'pro', sub: 'old-co' });
    const res = await call(token);
    assert.equal(res.status, 401);
    const body = (await res.json()) as { code: string; message: string };
    assert.equal(body.code, 'unauthorized');
    assert.match(body.message, /plan \(pro\)/);
  });
});
