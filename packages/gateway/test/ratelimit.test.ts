import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { parseList } from 'structured-headers';
import { burst, redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import {
  createTestKeyring,
  PROXY_TEST_PATHS,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  type TestPlans,
  writeDocument,
  writePlansFile,
} from './support/index.js';
import { VERIFICATIONS_PER_SECOND } from '../src/pipeline/steps/key-guard.js';

type Keyring = Awaited<ReturnType<typeof createTestKeyring>>;

/** The shipped limits, with a quicker ban than the shipped one. */
const plansFile = (overrides: TestPlans = {}): string => writePlansFile({ ban: { strikes: 5, strikeWindowSeconds: 60, banSeconds: 120 }, ...overrides });

/** Checks the rate-limit headers of any answer with an RFC 9651 parser. */
function assertRateLimitHeaders(res: Response): void {
  const policy = parseList(res.headers.get('ratelimit-policy') ?? '');
  assert.deepEqual(
    policy.map(([name]) => name),
    ['minute', 'day'],
  );
  for (const [, params] of policy) assert.ok(Number.isInteger(params.get('q')) && Number.isInteger(params.get('w')));
  const current = parseList(res.headers.get('ratelimit') ?? '');
  assert.deepEqual(
    current.map(([name]) => name),
    ['minute', 'day'],
  );
  for (const [, params] of current) assert.ok((params.get('r') as number) >= 0 && (params.get('t') as number) >= 0);
  assert.match(res.headers.get('x-ratelimit-limit') ?? '', /^\d+$/);
  assert.ok(Number(res.headers.get('x-ratelimit-remaining')) >= 0);
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  assert.ok(reset >= Math.floor(Date.now() / 1000) - 1 && reset < Date.now() / 1000 + 86_400 * 2, `reset ${reset}`);
}

for (const store of ['memory', 'redis'] as const) {
  describe(`rate limits, ${store === 'redis' ? 'shared through Redis' : 'in process'}`, { skip: store === 'redis' ? redisSkipReason() : false }, () => {
    let redis: RedisServer | undefined;
    let keyring: Keyring;
    let upstream: RecordingUpstream;
    let gateways: RunningGateway[] = [];
    let plans: string;
    const env = () => ({
      UPSTREAM_URL: upstream.url,
      // The proxy-test operations, and one whose sunset has passed (for the 410).
      OPENAPI_FILE: writeDocument({
        ...PROXY_TEST_PATHS,
        '/retired': { get: { operationId: 'retired', deprecated: true, 'x-sunset': '2020-01-01T00:00:00Z' } },
      }),
      JWKS_FILE: keyring.files.jwks,
      PLANS_FILE: plans,
      ...(redis === undefined ? {} : { REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '1000' }),
    });

    before(async () => {
      if (store === 'redis') redis = await startRedis();
      keyring = await createTestKeyring();
      upstream = await startRecordingUpstream();
      plans = plansFile();
      gateways.push(await startGateway(env()));
      if (store === 'redis') gateways.push(await startGateway(env()));
    });
    after(async () => {
      for (const gateway of gateways) await gateway.close();
      gateways = [];
      await upstream?.close();
      await redis?.close();
    });

    test('500 parallel requests on a fresh free key admit exactly 60', async () => {
      const { token } = await keyring.issue({ plan: 'free', sub: `free-${store}` });
      const counts = await burst([gateways[0]!.url], 500, token);
      assert.deepEqual(counts, { 200: 60, 429: 440 });
    });

    test('3,000 parallel requests on a business key admit exactly 1,000', async () => {
      const { token } = await keyring.issue({ plan: 'business', sub: `biz-${store}` });
      const counts = await burst([gateways[0]!.url], 3000, token);
      assert.equal(counts[200], 1000);
      assert.equal((counts[429] ?? 0) + (counts[200] ?? 0), 3000, JSON.stringify(counts));
    });

    if (store === 'redis') {
      test('the same, spread over two gateway instances sharing one Redis', async () => {
        const { token } = await keyring.issue({ plan: 'free', sub: 'free-two-instances' });
        assert.deepEqual(
          await burst(
            gateways.map((g) => g.url),
            500,
            token,
          ),
          { 200: 60, 429: 440 },
        );
        const business = (await keyring.issue({ plan: 'business', sub: 'biz-two-instances' })).token;
        assert.equal(
          (
            await burst(
              gateways.map((g) => g.url),
              3000,
              business,
            )
          )[200],
          1000,
        );
      });

      test('limits are per account: two keys of one account share them', async () => {
        const a = (await keyring.issue({ plan: 'free', sub: 'shared-account' })).token;
        const b = (await keyring.issue({ plan: 'free', sub: 'shared-account' })).token;
        const counts = await Promise.all([burst([gateways[0]!.url], 40, a), burst([gateways[1]!.url], 40, b)]);
        assert.equal((counts[0][200] ?? 0) + (counts[1][200] ?? 0), 60);
      });
    }

    test('remaining counts down to 0; a refusal carries Retry-After and a Reset after it, and charges nothing', async () => {
      const { token } = await keyring.issue({ plan: 'free', sub: `countdown-${store}` });
      const call = () => fetch(`${gateways[0]!.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } });
      for (let expected = 59; expected >= 0; expected--) {
        const res = await call();
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('x-ratelimit-remaining'), String(expected));
        assert.equal(res.headers.get('x-ratelimit-limit'), '60');
        assertRateLimitHeaders(res);
      }
      const before = upstream.requests.length;
      const refused = await call();
      assert.equal(refused.status, 429);
      assert.deepEqual(await refused.json(), { code: 'rate_limited', message: 'Rate limit exceeded: retry after the time in Retry-After.', status: 429 });
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 61, `Retry-After ${retryAfter}`);
      assert.ok(Number(refused.headers.get('x-ratelimit-reset')) >= Math.floor(Date.now() / 1000) + retryAfter - 1);
      assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
      assertRateLimitHeaders(refused);
      assert.equal(upstream.requests.length, before, 'a 429 never reaches the upstream');
    });

    test('a key that keeps sending while limited is banned (429 key_banned, Retry-After = ban left)', async () => {
      const { token } = await keyring.issue({ plan: 'free', sub: `striker-${store}` });
      const call = () => fetch(`${gateways[0]!.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } });
      for (let i = 0; i < 60; i++) assert.equal((await call()).status, 200);
      const codes: string[] = [];
      for (let i = 0; i < 8; i++) codes.push(((await (await call()).json()) as { code: string }).code);
      assert.deepEqual(codes.slice(0, 4), ['rate_limited', 'rate_limited', 'rate_limited', 'rate_limited']);
      assert.equal(codes[4], 'key_banned', codes.join(','));
      const banned = await call();
      assert.equal(banned.status, 429);
      const retryAfter = Number(banned.headers.get('retry-after'));
      assert.ok(retryAfter > 100 && retryAfter <= 120, `ban left ${retryAfter}`);
      // Another key of the same account is not banned (bans are per key), though it shares the limit.
      const sibling = (await keyring.issue({ plan: 'free', sub: `striker-${store}` })).token;
      const siblingAnswer = await fetch(`${gateways[0]!.url}/v1/echo`, { headers: { authorization: `Bearer ${sibling}` } });
      assert.equal(((await siblingAnswer.json()) as { code: string }).code, 'rate_limited');
    });

    test('rate-limit headers are on every answer: 401, 404, 405, 410, 413, 502, 504 too', async () => {
      const { token } = await keyring.issue({ plan: 'pro', sub: `headers-${store}` });
      const auth = { authorization: `Bearer ${token}` };
      // A gateway of its own with a short upstream timeout, for the 504.
      const impatient = await startGateway({ ...env(), UPSTREAM_TIMEOUT_MS: '300' });
      gateways.push(impatient);
      const answers = [
        await fetch(`${gateways[0]!.url}/v1/echo`),
        await fetch(`${gateways[0]!.url}/v1/nothing-here`),
        await fetch(`${gateways[0]!.url}/v1/echo`, { method: 'PUT' }),
        await fetch(`${gateways[0]!.url}/v1/echo`, { method: 'POST', headers: auth, body: 'x'.repeat(70_000) }),
        await fetch(`${gateways[0]!.url}/v1/reset`, { headers: auth }),
        await fetch(`${impatient.url}/v1/hold`, { headers: auth }),
        await fetch(`${gateways[0]!.url}/v1/retired`, { headers: auth }),
      ];
      assert.deepEqual(
        answers.map((res) => res.status),
        [401, 404, 405, 413, 502, 504, 410],
      );
      for (const res of answers) assertRateLimitHeaders(res);
      assert.equal(answers[0]!.headers.get('x-ratelimit-limit'), '30', 'unauthenticated requests fall under the anonymous policy');
    });

    test('a plan change applies from the next request', async () => {
      const { token } = await keyring.issue({ plan: 'pro', sub: `vip-${store}` });
      const call = () => fetch(`${gateways[0]!.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal((await call()).headers.get('x-ratelimit-limit'), '300');
      writeFileSync(
        plans,
        JSON.stringify({ ...JSON.parse((await import('node:fs')).readFileSync(plans, 'utf8')), accounts: { [`vip-${store}`]: { minute: 7000, day: 50000 } } }),
      );
      assert.equal((await call()).headers.get('x-ratelimit-limit'), '7000');
    });
  });
}

describe('key guessing: an address over its anonymous limit gets a few signature checks a second', () => {
  let keyring: Keyring;
  let upstream: RecordingUpstream;
  let gateway: RunningGateway;
  let ahead = 0;
  before(async () => {
    keyring = await createTestKeyring();
    upstream = await startRecordingUpstream();
    const env = {
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      JWKS_FILE: keyring.files.jwks,
      PLANS_FILE: plansFile({ anonymous: { minute: 3, day: 1000 } }),
    };
    gateway = await startGateway(env, () => Date.now() + ahead);
  });
  after(async () => {
    await gateway?.close();
    await upstream?.close();
  });
  const call = (token: string) =>
    fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } }).then(async (res) => (await res.arrayBuffer(), res));

  test(`guesses count as anonymous requests; once refused, ${VERIFICATIONS_PER_SECOND} unknown keys a second are checked, however many arrive at once`, async () => {
    const known = (await keyring.issue({ plan: 'pro', sub: 'known' })).token;
    assert.equal((await call(known)).status, 200);
    // A real key with its signature bytes changed: well formed, a real kid, so it costs an Ed25519 check.
    const guess = (i: number) => `${known.slice(0, known.lastIndexOf('.') + 1)}${Buffer.alloc(64, i + 1).toString('base64url')}`;
    for (let i = 0; i < 3; i++) assert.equal((await call(guess(i))).status, 401);
    assert.equal((await call(guess(3))).status, 429, 'the fourth guess is over the anonymous limit');
    for (let i = 0; i < VERIFICATIONS_PER_SECOND; i++) assert.equal((await call(guess(10 + i))).status, 429);

    // A valid key the gateway has never seen: had its signature been checked, it would pass.
    const fresh = (await keyring.issue({ plan: 'pro', sub: 'fresh' })).token;
    const throttled = await call(fresh);
    assert.equal(throttled.status, 429);
    assert.ok(Number(throttled.headers.get('retry-after')) >= 1);
    assert.equal(throttled.headers.get('x-ratelimit-limit'), '3', 'the anonymous policy refused it');
    assert.equal((await call(known)).status, 200, 'a key verified before is not held up');

    ahead = 1100; // a new second: a new budget, counted before any check runs
    const newcomers = await Promise.all(Array.from({ length: 30 }, (_, i) => keyring.issue({ plan: 'pro', sub: `newcomer-${i}` })));
    const statuses = await Promise.all(newcomers.map(({ token }) => call(token).then((res) => res.status)));
    assert.equal(statuses.filter((status) => status === 200).length, VERIFICATIONS_PER_SECOND);
    assert.equal(statuses.filter((status) => status === 429).length, 30 - VERIFICATIONS_PER_SECOND);
  });
});
