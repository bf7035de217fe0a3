import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason } from '@animal-store/testkit';
import { claimsFor } from '../support/index.js';
import { startStack, type Stack } from './stack.js';

// Hostile suite, issue 29 point 1: valid keys whose `sub` no header can carry (signed with the
// keyring directly: the keys CLI refuses to issue them) once took the gateway down: each was a 502
// charged to the plan, and after UPSTREAM_MAX_SOCKETS of them undici's pool had no connection left,
// so every request of every key was a 504 for good while /readyz hung. Now each is a 401 saying
// why, nothing of them reaches the core, every other key keeps its 200 and /readyz answers.

const MAX_SOCKETS = 4;
const ROUNDS = 25;
const UNCARRIABLE = ['Łódź-日本語', 'naïve café', 'nul\u0000byte', 'cr\rlf\n', 'del\u007f', 'tab\there', 'alice ', ' alice', 'emoji😀', '\u00a0nbsp'];
/** The shipped plans (packages/gateway/plans/plans.json), each a key is issued on. */
const PLANS = ['free', 'pro', 'business', 'enterprise'];

describe('hostile: API keys whose account cannot travel in a header', { skip: redisSkipReason() }, () => {
  let stack: Stack;
  let gateway: string;

  before(async () => {
    // Each attack request comes from an address of its own (through a trusted proxy), so that none
    // is answered by the anonymous limit's 429 instead: every one must reach the key check.
    stack = await startStack({ gateways: 1, env: { UPSTREAM_MAX_SOCKETS: String(MAX_SOCKETS), TRUST_PROXY: '127.0.0.1/32' } });
    gateway = (stack.gateways[0] as { url: string }).url;
  });
  after(async () => {
    await stack?.close();
  });

  test(`${ROUNDS * UNCARRIABLE.length} such requests: each a 401 saying why; then every plan's key gets 200 and /readyz answers`, async () => {
    const tokens = await Promise.all(
      UNCARRIABLE.map((sub, i) => stack.keyring.sign({}, claimsFor({ sub, jti: `uncarriable-${i}`, plan: PLANS[i % PLANS.length] }))),
    );
    const started = performance.now();
    const statuses = new Map<number, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await Promise.all(
        tokens.map(async (token, i) => {
          const res = await fetch(`${gateway}/v1/pets?limit=1`, {
            headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': `10.29.${round}.${i + 1}` },
            signal: AbortSignal.timeout(30_000),
          });
          return { status: res.status, body: (await res.json()) as { code: string; message: string } };
        }),
      );
      for (const { status, body } of answers) {
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        assert.equal(status, 401, JSON.stringify(body));
        assert.equal(body.code, 'unauthorized');
        assert.match(body.message, /subject \(sub\) holds characters an HTTP header cannot carry/);
      }
    }
    console.log(`# ${ROUNDS * tokens.length} requests in ${Math.round(performance.now() - started)} ms: ${JSON.stringify(Object.fromEntries(statuses))}`);

    for (const plan of PLANS) {
      const { token } = await stack.keyring.issue({ plan, sub: `honest-${plan}`, ...(plan === 'enterprise' ? { limits: { minute: 1000 } } : {}) });
      // More than the pool has connections, at once: none may be waiting for a lost one.
      const answers = await Promise.all(
        Array.from({ length: MAX_SOCKETS * 2 }, () =>
          fetch(`${gateway}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(30_000) }).then(async (res) => {
            await res.arrayBuffer();
            return res.status;
          }),
        ),
      );
      assert.deepEqual(
        answers,
        answers.map(() => 200),
        plan,
      );
    }
    const readyStarted = performance.now();
    const ready = await fetch(`${gateway}/readyz`, { signal: AbortSignal.timeout(15_000) });
    assert.equal(ready.status, 200, await ready.text());
    console.log(`# /readyz answered in ${Math.round(performance.now() - readyStarted)} ms`);
  });
});
