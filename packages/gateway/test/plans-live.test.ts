import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createCalendar } from '../src/ratelimit/calendar.js';
import { startGateway, startLimitedStack, writePlansFile, type LimitedStack, type RunningGateway } from './support/index.js';

// Issue 21: a monthly quota as a client meets it, and plan changes applied to a running gateway:
// lowering a quota below what is used refuses at once, raising it admits at once.

const ZONE = 'Europe/Berlin';

describe('a monthly quota, changed while the gateway runs', () => {
  let stack: LimitedStack;
  let gateway: RunningGateway;
  let token: string;
  const t0 = Date.now();
  const file = writePlansFile();
  const shipped = JSON.parse(readFileSync(file, 'utf8')) as { plans: Record<string, object> };
  const setMonth = (month: number) => writeFileSync(file, JSON.stringify({ ...shipped, plans: { ...shipped.plans, free: { minute: 60, day: 1000, month } } }));
  const get = (headers: Record<string, string> = {}) => fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}`, ...headers } });

  before(async () => {
    stack = await startLimitedStack({ redis: false });
    setMonth(5);
    // A clock that stands still: the quota's Retry-After is then exactly the time to the month's end.
    gateway = await startGateway({ ...stack.env, PLANS_FILE: file, QUOTA_TIME_ZONE: ZONE }, () => t0);
    token = (await stack.keyring.issue({ plan: 'free', sub: 'monthly' })).token;
  });
  after(async () => {
    await gateway?.close();
    await stack?.close();
  });

  test('the month is a policy of its own; past it, 429 quota_exhausted until the month ends', async () => {
    const month = createCalendar(ZONE).monthOf(t0);
    for (let i = 0; i < 5; i++) {
      const res = await get();
      await res.arrayBuffer();
      assert.equal(res.status, 200);
      if (i === 0) {
        assert.equal(
          res.headers.get('ratelimit-policy'),
          `"minute";q=60;w=60, "day";q=1000;w=86400, "month";q=5;w=${Math.ceil((month.end - month.start) / 1000)};qu="request"`,
        );
        assert.match(res.headers.get('ratelimit') ?? '', new RegExp(`"month";r=4;t=${Math.ceil((month.end - t0) / 1000)}$`));
      }
    }
    const refused = await get();
    const body = (await refused.json()) as { code: string; message: string };
    assert.equal(refused.status, 429);
    assert.equal(body.code, 'quota_exhausted');
    assert.equal(refused.headers.get('retry-after'), String(Math.ceil((month.end - t0) / 1000)), 'Retry-After reaches the month’s end');
    assert.ok(body.message.includes(new Date(month.end).toISOString()), body.message);
    const problem = (await (await get({ accept: 'application/problem+json' })).json()) as { 'violated-policies'?: string[] };
    assert.deepEqual(problem['violated-policies'], ['month']);
  });

  test('raising the quota admits at once; lowering it below what is used refuses at once', async () => {
    setMonth(8);
    const raised = await get();
    await raised.arrayBuffer();
    assert.equal(raised.status, 200);
    assert.match(raised.headers.get('ratelimit') ?? '', /"month";r=2;/, '6 used of 8: the refusals charged nothing');
    setMonth(3);
    const lowered = await get();
    assert.equal(((await lowered.json()) as { code: string }).code, 'quota_exhausted');
  });
});
