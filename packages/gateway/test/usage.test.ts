import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, runServiceToExit, startRedis, type RedisServer } from '@animal-store/testkit';
import {
  createTestKeyring,
  PROXY_TEST_PATHS,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  writeDocument,
  writePlansFile,
} from './support/index.js';
import { USAGE_POLICY } from '../src/ratelimit/rate-limiting.js';

interface Usage {
  plan: string;
  windows: Record<string, { limit: number; remaining: number; resetAt: number }>;
  ban: { until: number } | null;
  keyExpiresAt: number | null;
}

for (const store of ['memory', 'redis'] as const) {
  describe(`GET /v1/usage, limits ${store === 'redis' ? 'in Redis' : 'in process'}`, { skip: store === 'redis' ? redisSkipReason() : false }, () => {
    let redis: RedisServer | undefined;
    let upstream: RecordingUpstream;
    let gateway: RunningGateway;
    let keyring: Awaited<ReturnType<typeof createTestKeyring>>;

    before(async () => {
      if (store === 'redis') redis = await startRedis();
      upstream = await startRecordingUpstream();
      keyring = await createTestKeyring();
      gateway = await startGateway({
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
        JWKS_FILE: keyring.files.jwks,
        PLANS_FILE: writePlansFile({ plans: { free: { minute: 5, day: 1000 } }, ban: { strikes: 3, strikeWindowSeconds: 60, banSeconds: 120 } }),
        ...(redis === undefined ? {} : { REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '1000' }),
      });
    });
    after(async () => {
      await gateway?.close();
      await upstream?.close();
      await redis?.close();
    });

    const usage = (token: string, headers: Record<string, string> = {}) =>
      fetch(`${gateway.url}/v1/usage`, { headers: { authorization: `Bearer ${token}`, ...headers } });
    const echo = (token: string) =>
      fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } }).then(async (res) => (await res.arrayBuffer(), res.status));

    test("tells the plan, each window, no ban and the key's expiry; asking charges nothing", async () => {
      const { token } = await keyring.issue({ plan: 'free', sub: `usage-${store}`, ttlMs: 3_600_000 });
      const started = Math.floor(Date.now() / 1000);
      for (let i = 0; i < 3; i++) {
        const res = await usage(token);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'application/json');
        assert.equal(res.headers.get('x-ratelimit-remaining'), '5', 'its headers are the plan’s, uncharged');
        const body = (await res.json()) as Usage;
        assert.equal(body.plan, 'free');
        assert.deepEqual(Object.keys(body.windows), ['minute', 'day']);
        assert.deepEqual(
          [body.windows.minute?.limit, body.windows.minute?.remaining, body.windows.day?.limit, body.windows.day?.remaining],
          [5, 5, 1000, 1000],
        );
        assert.equal(body.ban, null);
        assert.ok(body.keyExpiresAt !== null && Math.abs(body.keyExpiresAt - (started + 3600)) <= 2, String(body.keyExpiresAt));
      }
      assert.equal(await echo(token), 200);
      const after = (await (await usage(token)).json()) as Usage;
      assert.deepEqual([after.windows.minute?.remaining, after.windows.day?.remaining], [4, 999]);
      assert.ok((after.windows.minute?.resetAt ?? 0) >= started + 60);
      assert.ok(!upstream.requests.some((request) => request.url.includes('usage')), 'answered by the gateway, never forwarded');
    });

    test('a banned key is told until when, and asking neither extends the ban nor counts a strike', async () => {
      const { token } = await keyring.issue({ plan: 'free', sub: `banned-${store}` });
      const statuses: number[] = [];
      for (let i = 0; i < 12 && !statuses.includes(429); i++) statuses.push(await echo(token));
      let banned: Usage | undefined;
      for (let i = 0; i < 6 && banned?.ban == null; i++) {
        await echo(token);
        banned = (await (await usage(token)).json()) as Usage;
      }
      assert.ok(banned?.ban != null, 'the key got banned');
      const until = banned.ban.until;
      assert.ok(until > Date.now() / 1000 + 100 && until <= Date.now() / 1000 + 121, String(until));
      for (let i = 0; i < 5; i++) assert.deepEqual(((await (await usage(token)).json()) as Usage).ban, { until });
      assert.deepEqual([banned.windows.minute?.remaining, banned.windows.minute?.limit], [0, 5]);
    });

    test('its own limit per key: past it, 429 with the usage policy, and the plan untouched', async () => {
      const { token } = await keyring.issue({ plan: 'pro', sub: `poll-${store}` });
      const limit = USAGE_POLICY.windows[0]?.limit as number;
      const statuses = await Promise.all(Array.from({ length: limit + 3 }, () => usage(token).then(async (res) => (await res.arrayBuffer(), res.status))));
      assert.equal(statuses.filter((status) => status === 200).length, limit);
      const refused = await usage(token);
      assert.equal(refused.status, 429);
      assert.match(refused.headers.get('ratelimit-policy') ?? '', /^"minute";q=60;w=60/);
      assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
      assert.equal(((await refused.json()) as { code: string }).code, 'rate_limited');
      const echoed = await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(echoed.status, 200);
      assert.equal(echoed.headers.get('x-ratelimit-remaining'), '299', 'the plan was never charged');
    });

    test('without a valid key: 401, as for any operation', async () => {
      assert.equal((await fetch(`${gateway.url}/v1/usage`)).status, 401);
      assert.equal((await usage('not-a-key')).status, 401);
    });

    if (store === 'redis') {
      test('a key revoked in Redis is refused: the peek asks the deny-list', async () => {
        const { token, record } = await keyring.issue({ plan: 'pro', sub: 'revoked-usage' });
        assert.equal((await usage(token)).status, 200);
        const admin = new Redis(redis?.url as string);
        try {
          await admin.sadd('gw:revoked', record.jti);
        } finally {
          admin.disconnect();
        }
        assert.equal((await usage(token)).status, 401);
      });
    }
  });
}

test("the gateway refuses to start when the backend's document already has /usage", () => {
  const doc = writeDocument({ ...PROXY_TEST_PATHS, '/usage': { get: { operationId: 'theirUsage' } } });
  const run = runServiceToExit('gateway', { AUTH: 'off', OPENAPI_FILE: doc, PORT: '0' });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /already has the path \/usage, which the gateway answers itself/);
});
