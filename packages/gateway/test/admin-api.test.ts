import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason } from '@animal-store/testkit';
import {
  capturedLog,
  startGateway,
  startLimitedStack,
  writeAdminTokens,
  writePlansFile,
  type LimitedStack,
  type RunningGateway,
  type TestPlans,
} from './support/index.js';

// Issue 32: the admin API, against a gateway in this process, its limits in process and in Redis.
// The clock is the test's: every read is of "today", whatever the hour the test runs at.

const T0 = Date.UTC(2026, 10, 28, 12);
const clock = () => T0;

interface AccountBody {
  account: string;
  plan: string | null;
  shadow: boolean;
  next: string;
  retryAt: number | null;
  windows: Record<string, { limit: number; used: number; remaining: number; resetAt: number }>;
  shadowRefusals: Record<string, number>;
  banned: boolean;
  keys?: { id: string; plan: string; bannedUntil: number | null; revoked: boolean; refusedFrom: number | null }[];
}

for (const engine of ['in process', 'Redis'] as const) {
  describe(`the admin API, limits ${engine}`, { skip: engine === 'Redis' ? redisSkipReason() : false }, () => {
    let stack: LimitedStack;
    const admin = writeAdminTokens('ops');
    const running: RunningGateway[] = [];
    before(async () => {
      stack = await startLimitedStack({ redis: engine === 'Redis' });
    });
    after(async () => {
      for (const gateway of running) await gateway.close();
      await stack?.close();
    });

    /** A gateway with the admin API on, `plans` its plans; its Redis prefix its own, so tests do not see each other's accounts. */
    async function gateway(plans: TestPlans, env: Record<string, string> = {}) {
      const log = capturedLog();
      const started = await startGateway(
        {
          ...stack.env,
          PLANS_FILE: writePlansFile(plans),
          METRICS_PORT: '0',
          ADMIN_TOKEN_FILE: admin.file,
          REVOCATIONS_FILE: stack.keyring.files.revoked,
          RATE_LIMIT_DENY_CACHE_MS: '0',
          ...(engine === 'Redis' ? { REDIS_PREFIX: `t${running.length}` } : {}),
          ...env,
        },
        clock,
        clock,
        { logger: log.logger },
      );
      running.push(started);
      const adminUrl = started.adminUrl as string;
      const call = (path: string, init: RequestInit = {}) => fetch(`${adminUrl}${path}`, { ...init, headers: { ...admin.headers, ...init.headers } });
      const json = async <T>(path: string, init: RequestInit = {}) => {
        const res = await call(path, init);
        return { status: res.status, body: (await res.json()) as T, headers: res.headers };
      };
      const api = (token: string, path = '/v1/echo') => fetch(`${started.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      /** The accounts of today once the ledger has `count` of them (with Redis it is written in batches, a few ms later). */
      async function accounts(count: number, query = ''): Promise<AccountBody[]> {
        const deadline = Date.now() + 10_000;
        for (;;) {
          const { status, body } = await json<{ accounts: AccountBody[] }>(`/accounts${query}`);
          assert.equal(status, 200);
          if (body.accounts.length >= count) return body.accounts;
          assert.ok(Date.now() < deadline, `${count} accounts listed in time (${body.accounts.length} so far)`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      return { gateway: started, call, json, api, accounts, log };
    }

    test('lists the accounts the traffic made, with what /v1/usage says of each, page after page', async () => {
      const { json, api, accounts } = await gateway({ plans: { free: { minute: 5, day: 100 } } });
      const keys = {
        acme: (await stack.keyring.issue({ plan: 'free', sub: 'acme' })).token,
        beta: (await stack.keyring.issue({ plan: 'pro', sub: 'beta' })).token,
        gamma: (await stack.keyring.issue({ plan: 'free', sub: 'gamma' })).token,
      };
      for (const [account, count] of [
        ['acme', 3],
        ['beta', 2],
        ['gamma', 1],
      ] as const) {
        for (let i = 0; i < count; i++) assert.equal((await api(keys[account])).status, 200);
      }
      const listed = await accounts(3);
      const byName = Object.fromEntries(listed.map((account) => [account.account, account]));
      assert.deepEqual(Object.keys(byName).sort(), ['acme', 'beta', 'gamma']);
      assert.deepEqual([byName.acme?.plan, byName.acme?.next, byName.acme?.banned, byName.beta?.plan], ['free', 'allowed', false, 'pro']);
      assert.deepEqual(byName.acme?.windows.minute, { ...byName.acme?.windows.minute, limit: 5, used: 3, remaining: 2 });
      assert.equal(byName.beta?.windows.day?.used, 2);
      // The same numbers as the account's own GET /v1/usage: one reading of the limits, not two.
      const usage = (await (await api(keys.acme, '/v1/usage')).json()) as { windows: Record<string, { limit: number; remaining: number; resetAt: number }> };
      for (const name of ['minute', 'day']) {
        const { used: _used, ...reading } = byName.acme?.windows[name] as AccountBody['windows'][string];
        assert.deepEqual(reading, usage.windows[name], name);
      }

      const walked: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const { status, body } = await json<{ accounts: AccountBody[]; next?: string }>(`/accounts?limit=1${cursor === undefined ? '' : `&cursor=${cursor}`}`);
        assert.equal(status, 200);
        assert.ok(body.accounts.length <= 1);
        walked.push(...body.accounts.map((account) => account.account));
        cursor = body.next;
        assert.ok(++pages <= 10, 'the pages end');
      } while (cursor !== undefined);
      assert.deepEqual([...new Set(walked)].sort(), ['acme', 'beta', 'gamma']);
      assert.deepEqual(
        (await accounts(1, '?q=mm')).map((account) => account.account),
        ['gamma'],
      );
    });

    test('one account: its keys and their bans; a ban lifted, the key is limited again as its plan says', async () => {
      const { json, api, accounts, log } = await gateway({
        plans: { free: { minute: 2, day: 100 } },
        ban: { strikes: 2, strikeWindowSeconds: 60, banSeconds: 600 },
      });
      const { token, record } = await stack.keyring.issue({ plan: 'free', sub: 'banned-co' });
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await api(token)).status);
      assert.deepEqual(statuses, [200, 200, 429, 429, 429]);
      assert.equal(((await (await api(token)).json()) as { code: string }).code, 'key_banned');
      await accounts(1);
      const detail = await json<AccountBody>('/accounts/banned-co');
      assert.equal(detail.status, 200);
      assert.deepEqual([detail.body.banned, detail.body.next, detail.body.retryAt], [true, 'banned', Math.ceil((T0 + 600_000) / 1000)]);
      assert.deepEqual(
        detail.body.keys?.map((key) => [key.id, key.plan, key.bannedUntil, key.revoked]),
        [[record.jti, 'free', Math.ceil((T0 + 600_000) / 1000), false]],
      );

      const lifted = await json(`/bans/${record.jti}`, { method: 'DELETE' });
      assert.deepEqual([lifted.status, lifted.body], [200, { keyId: record.jti, account: 'banned-co', lifted: true }]);
      const next = await api(token);
      assert.deepEqual(
        [next.status, ((await next.json()) as { code: string }).code],
        [429, 'rate_limited'],
        'its minute is still spent: limited, no longer banned',
      );
      assert.deepEqual((await json(`/bans/${record.jti}`, { method: 'DELETE' })).body, { keyId: record.jti, account: 'banned-co', lifted: false });
      const unknown = await json<{ code: string }>('/bans/never-seen', { method: 'DELETE' });
      assert.deepEqual([unknown.status, unknown.body.code], [404, 'key_not_found']);
      assert.equal((await json<{ code: string }>('/bans/%01', { method: 'DELETE' })).body.code, 'invalid_parameter');
      assert.deepEqual((await json<{ code: string }>('/accounts/nobody')).body, {
        code: 'account_not_found',
        message: 'No account of that name was seen today.',
        status: 404,
      });
      const audit = log
        .text()
        .split('\n')
        .filter((line) => line.includes('"audit":true'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.deepEqual(
        audit.map((line) => [line.admin, line.action, line.keyId, line.outcome]),
        [
          ['ops', 'lift ban', record.jti, 'lifted'],
          ['ops', 'lift ban', record.jti, 'not banned'],
          ['ops', 'lift ban', 'never-seen', 'key_not_found'],
        ],
      );
    });

    test('revoke: refused from the next request, kept in the deny-list file; a key never seen is unknown', async () => {
      const { json, api, accounts, log } = await gateway({});
      const { token, record } = await stack.keyring.issue({ plan: 'pro', sub: 'leaky' });
      assert.equal((await api(token)).status, 200);
      await accounts(1);
      const revoked = await json<{ keyId: string; account: string; refusedFrom: number; already: boolean }>(`/keys/${record.jti}/revoke`, { method: 'POST' });
      assert.deepEqual(revoked, {
        status: 200,
        headers: revoked.headers,
        body: { keyId: record.jti, account: 'leaky', refusedFrom: T0 / 1000, already: false },
      });
      assert.equal((await api(token)).status, 401);
      assert.equal(JSON.parse(readFileSync(stack.keyring.files.revoked, 'utf8')).revoked[record.jti], new Date(T0).toISOString());
      assert.equal((await json<{ already: boolean }>(`/keys/${record.jti}/revoke`, { method: 'POST' })).body.already, true);
      const detail = await json<AccountBody>('/accounts/leaky');
      assert.deepEqual(
        detail.body.keys?.map((key) => [key.id, key.revoked, key.refusedFrom]),
        [[record.jti, true, T0 / 1000]],
      );
      // Issue 39, 3.8: the list said `allowed` for an account whose key in use is revoked (until opened).
      assert.deepEqual([detail.body.next, detail.body.retryAt], ['revoked', null]);
      const listed = (await accounts(1)).find((account) => account.account === 'leaky');
      assert.deepEqual([listed?.next, listed?.retryAt], ['revoked', null]);
      assert.equal((await json<{ code: string }>('/keys/never-seen/revoke', { method: 'POST' })).body.code, 'key_not_found');
      assert.equal((await json<{ code: string }>(`/keys/${'x'.repeat(129)}/revoke`, { method: 'POST' })).body.code, 'invalid_parameter');
      assert.equal((await json<{ code: string }>(`/keys/${record.jti}/revoke`)).status, 405);
      assert.match(
        log.text(),
        new RegExp(`"audit":true,"admin":"ops","ip":"127\\.0\\.0\\.1","action":"revoke","keyId":"${record.jti}","account":"leaky","outcome":"revoked"`),
      );
    });

    test('shadow plans: the refusals they would have made, by account and plan', async () => {
      const { api, accounts } = await gateway({ plans: { free: { minute: 2, day: 100 } } }, { SHADOW_PLANS: 'free' });
      const { token } = await stack.keyring.issue({ plan: 'free', sub: 'trial-co' });
      for (let i = 0; i < 5; i++) assert.equal((await api(token)).status, 200, 'a plan in shadow refuses nothing');
      const deadline = Date.now() + 10_000;
      let account: AccountBody | undefined;
      while ((account = (await accounts(1))[0])?.shadowRefusals.free !== 3) {
        assert.ok(Date.now() < deadline, `3 shadow refusals counted in time (${JSON.stringify(account?.shadowRefusals)})`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.deepEqual([account?.shadow, account?.next, account?.windows.minute?.used], [true, 'shadow_limited', 2]);
    });

    test("billing: each account's units this month as its monthly quota counts them, JSON and CSV", async () => {
      const plansFile = writePlansFile({ plans: { free: { minute: 50, day: 100 } } });
      const content = JSON.parse(readFileSync(plansFile, 'utf8')) as { plans: Record<string, Record<string, number>> };
      content.plans.free = { ...content.plans.free, month: 1000 };
      writeFileSync(plansFile, JSON.stringify(content));
      const { call, json, api, accounts } = await gateway({}, { PLANS_FILE: plansFile });
      const metered = (await stack.keyring.issue({ plan: 'free', sub: 'metered' })).token;
      const flat = (await stack.keyring.issue({ plan: 'pro', sub: 'flat' })).token;
      for (let i = 0; i < 4; i++) assert.equal((await api(metered)).status, 200);
      assert.equal((await api(flat)).status, 200);
      await accounts(2);
      const billing = await json<{ month: string; timeZone: string; accounts: unknown[] }>('/billing');
      assert.deepEqual([billing.body.month, billing.body.timeZone], ['2026-11', 'UTC']);
      assert.deepEqual(billing.body.accounts, [
        { account: 'flat', plan: 'pro', units: null, quota: null, unaccounted: null },
        { account: 'metered', plan: 'free', units: 4, quota: 1000, unaccounted: 0 },
      ]);
      const csv = await call('/billing.csv');
      assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8; header=present');
      assert.equal(csv.headers.get('content-disposition'), 'attachment; filename="billing-2026-11.csv"');
      assert.equal(await csv.text(), 'month,account,plan,units,quota,unaccounted\r\n2026-11,flat,pro,,,\r\n2026-11,metered,free,4,1000,0\r\n');
    });

    test('a candidate plans file: which accounts it would refuse now, or what is wrong with it', async () => {
      const { json, api, accounts } = await gateway({ plans: { free: { minute: 5, day: 100 } } });
      const busy = (await stack.keyring.issue({ plan: 'free', sub: 'busy' })).token;
      const calm = (await stack.keyring.issue({ plan: 'pro', sub: 'calm' })).token;
      for (let i = 0; i < 3; i++) assert.equal((await api(busy)).status, 200);
      assert.equal((await api(calm)).status, 200);
      await accounts(2);
      const candidate = JSON.parse(readFileSync(writePlansFile({ plans: { free: { minute: 3, day: 100 } } }), 'utf8')) as unknown;
      const post = (body: string, type = 'application/json') =>
        json<Record<string, unknown>>('/plans/check', { method: 'POST', body, headers: { 'content-type': type } });
      const checked = await post(JSON.stringify(candidate));
      assert.deepEqual([checked.status, checked.body.valid, checked.body.checked], [200, true, 2]);
      assert.deepEqual(checked.body.refused, [
        { account: 'busy', plan: 'free', shadow: false, refusal: 'minute', retryAt: Math.ceil((T0 + 61_000) / 1000), now: 'allowed' },
      ]);
      const invalid = await post(JSON.stringify({ plans: { free: { minute: -1 } } }));
      assert.equal(invalid.body.valid, false);
      assert.ok((invalid.body.problems as string[]).some((problem) => problem.startsWith('plans.free.minute:')));
      assert.deepEqual((await post('{"plans":')).body.valid, false);
      assert.equal((await post('{}', 'text/plain')).status, 415);
      const huge = await post(`"${'x'.repeat(8 * 1024 * 1024)}"`);
      assert.deepEqual([huge.status, (huge.body as { code?: string }).code], [413, 'payload_too_large']);
    });

    test('the settings in force without secrets, and the decisions so far', async () => {
      // Spans go to the recording upstream, which answers at once: a collector's API key is a secret of the settings.
      const { json, api } = await gateway({}, { OTEL_EXPORTER_OTLP_ENDPOINT: stack.upstream.url, OTEL_EXPORTER_OTLP_HEADERS: 'api-key=s3cret' });
      const { token } = await stack.keyring.issue({ plan: 'pro', sub: 'counted' });
      for (let i = 0; i < 2; i++) await api(token);
      const config = await json<{ settings: Record<string, unknown>; plans: { version: { hash: string } } }>('/config');
      assert.equal(config.status, 200);
      assert.doesNotMatch(JSON.stringify(config.body), /s3cret/);
      assert.match(config.body.plans.version.hash, /^[0-9a-f]{16}$/);
      const decisions = await json<{ decisions: { plan: string; decision: string; count: number }[] }>('/decisions');
      assert.deepEqual(
        decisions.body.decisions.filter((d) => d.plan === 'pro'),
        [{ plan: 'pro', decision: 'allowed', count: 2 }],
      );
    });

    test('bad input: no token, a wrong one (then 429 as any anonymous client), malformed parameters, the public port', async () => {
      const { gateway: started, call, json } = await gateway({ anonymous: { minute: 3, day: 1000 } });
      const noToken = await fetch(`${started.adminUrl}/accounts`);
      assert.deepEqual([noToken.status, noToken.headers.get('www-authenticate')], [401, 'Bearer realm="admin"']);
      assert.deepEqual(await noToken.json(), {
        code: 'unauthorized',
        message: 'An admin token is required: Authorization: Bearer <admin token>.',
        status: 401,
      });
      const wrong = () => fetch(`${started.adminUrl}/accounts`, { headers: { authorization: `Bearer ${'w'.repeat(40)}` } });
      assert.equal((await wrong()).status, 401);
      assert.equal((await wrong()).status, 401);
      const limited = await wrong();
      assert.equal(limited.status, 429, 'the address spent its anonymous minute (3, two of them above)');
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      assert.equal(((await limited.json()) as { code: string }).code, 'anonymous_rate_limited');
      assert.equal((await call('/accounts')).status, 200, 'the right token still passes');

      for (const query of ['?limit=0', '?limit=1001', '?limit=ten', '?limits=5', '?cursor=bm90LW91cnM', '?limit=1&limit=2', '?q=']) {
        const { status, body } = await json<{ code: string; message: string }>(`/accounts${query}`);
        assert.deepEqual([status, body.code], [400, 'invalid_parameter'], `${query}: ${body.message}`);
      }
      assert.equal((await json<{ code: string }>('/accounts/%E0%A4%A')).body.code, 'invalid_parameter');
      assert.equal((await json<{ code: string }>(`/accounts/${'a'.repeat(257)}`)).body.code, 'invalid_parameter');
      assert.equal((await json<{ code: string }>('/accounts/a%0Ab')).body.code, 'invalid_parameter');
      assert.deepEqual((await json('/nothing-here')).status, 404);
      const wrongMethod = await call('/accounts', { method: 'DELETE' });
      assert.deepEqual([wrongMethod.status, wrongMethod.headers.get('allow')], [405, 'GET']);

      const onPublic = await fetch(`${started.url}/admin/accounts`, { headers: admin.headers });
      assert.deepEqual([onPublic.status, ((await onPublic.json()) as { code: string }).code], [404, 'not_found']);
      const page = await fetch(`${started.adminUrl}`);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'; script-src 'self'/);
      assert.match(await page.text(), /<script type="module" src="admin\/console\.js"><\/script>/);
      // The modules the console's script imports, relative to it, served beside it.
      for (const module of ['console-api.js', 'console-dom.js', 'console-tables.js']) {
        const served = await fetch(`${started.adminUrl}/${module}`);
        assert.deepEqual([served.status, served.headers.get('content-type')], [200, 'text/javascript; charset=utf-8'], module);
      }
      const slash = await fetch(`${started.adminUrl}/`, { redirect: 'manual' });
      assert.deepEqual([slash.status, slash.headers.get('location')], [308, '../admin']);
    });
  });
}
