import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { freePort, redisSkipReason, runServiceToExit, temporaryDir, waitForReady } from '@animal-store/testkit';
import {
  requestOnFreshConnection,
  startGatewayProcess,
  startLimitedStack,
  writeAdminTokens,
  writePlansFile,
  type GatewayProcess,
  type LimitedStack,
} from './support/index.js';

// Issue 32: the admin API of gateways run as production runs them (the built entry, a primary and its
// workers): the primary serves it, and reads the limits where they are kept, in a lone worker, in
// itself for several workers, or in Redis shared by two instances.

interface Account {
  account: string;
  banned: boolean;
  next: string;
  windows: Record<string, { used: number; limit: number }>;
}

/** A gateway process with the admin API, and what a test asks of both its listeners. */
async function adminGateway(stack: LimitedStack, env: Record<string, string>) {
  const admin = writeAdminTokens('ops');
  const adminPort = await freePort();
  const gateway = await startGatewayProcess({ ...stack.env, METRICS_PORT: String(adminPort), ADMIN_TOKEN_FILE: admin.file, ...env });
  const adminUrl = `http://127.0.0.1:${adminPort}/admin`;
  await waitForReady(gateway.url, 20_000);
  const call = async <T>(path: string, method = 'GET') => {
    const res = await fetch(`${adminUrl}${path}`, { method, headers: admin.headers });
    return { status: res.status, body: (await res.json()) as T };
  };
  /** One request on a connection of its own: with several workers, consecutive ones go to each in turn. */
  const api = async (token: string) => (await requestOnFreshConnection(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } })).status;
  /** `name` once the ledger lists it. */
  async function account(name: string): Promise<Account> {
    const until = Date.now() + 15_000;
    for (;;) {
      const { status, body } = await call<{ accounts: Account[] }>('/accounts');
      assert.equal(status, 200, JSON.stringify(body));
      const found = body.accounts.find((candidate) => candidate.account === name);
      if (found !== undefined) return found;
      assert.ok(Date.now() < until, `${name} listed in time`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return { gateway, call, api, account, adminUrl };
}

async function stopped(gateway: GatewayProcess): Promise<void> {
  assert.equal(await gateway.stop(), 0, gateway.output());
}

for (const workers of ['1', '2'] as const) {
  test(`WORKERS=${workers}, limits in process: the primary reads the limits exactly, lifts a ban, and a revocation reaches every worker`, async () => {
    const stack = await startLimitedStack({ redis: false });
    const { gateway, call, api, account } = await adminGateway(stack, {
      WORKERS: workers,
      PLANS_FILE: writePlansFile({ plans: { free: { minute: 4, day: 100 } }, ban: { strikes: 2, strikeWindowSeconds: 60, banSeconds: 600 } }),
      REVOCATIONS_FILE: stack.keyring.files.revoked,
    });
    try {
      const { token, record } = await stack.keyring.issue({ plan: 'free', sub: 'acme' });
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push(await api(token));
      assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429], 'exact across the workers: one gateway, one limit');
      const acme = await account('acme');
      assert.deepEqual([acme.windows.minute?.used, acme.windows.minute?.limit, acme.banned, acme.next], [4, 4, true, 'banned']);

      const lifted = await call<{ lifted: boolean }>(`/bans/${record.jti}`, 'DELETE');
      assert.deepEqual([lifted.status, lifted.body.lifted], [200, true]);
      assert.equal((await account('acme')).next, 'limited', 'no longer banned: its minute is spent');

      const revoked = await call<{ already: boolean }>(`/keys/${record.jti}/revoke`, 'POST');
      assert.deepEqual([revoked.status, revoked.body.already], [200, false]);
      const after = [];
      for (let i = 0; i < 6; i++) after.push(await api(token));
      assert.deepEqual(after, Array(6).fill(401), 'every worker refuses it from the next request');
      const audit = await gateway.waitForRecord((line) => line.audit === true && line.action === 'revoke');
      assert.deepEqual([audit.admin, audit.keyId, audit.account, audit.outcome, audit.worker], ['ops', record.jti, 'acme', 'revoked', undefined]);
    } finally {
      await stopped(gateway);
      await stack.close();
    }
  });
}

describe('two gateway instances sharing one Redis', { skip: redisSkipReason() }, () => {
  test("a key revoked on one is refused by both from the next request; after Redis restarts empty, the admin's deny-list file keeps it", async () => {
    const stack = await startLimitedStack();
    const plans = writePlansFile();
    const adminRevoked = join(temporaryDir('gw-admin-revoked-'), 'revoked.json');
    // A: its revocations in a file of its own (a container's volume, say). B: revocations in Redis alone.
    // Both have the admin API on, as instances of one deployment are set alike: each writes who it saw.
    const a = await adminGateway(stack, { WORKERS: '2', PLANS_FILE: plans, REVOCATIONS_FILE: 'none', ADMIN_REVOCATIONS_FILE: adminRevoked });
    const { gateway: b, api: onB } = await adminGateway(stack, { WORKERS: '1', PLANS_FILE: plans, REVOCATIONS_FILE: 'none' });
    try {
      const { token, record } = await stack.keyring.issue({ plan: 'pro', sub: 'shared-co' });
      const other = (await stack.keyring.issue({ plan: 'pro', sub: 'seen-on-b' })).token;
      assert.deepEqual([await a.api(token), await onB(token), await onB(other)], [200, 200, 200]);
      // One ledger in Redis: what B served is listed by A's admin API.
      assert.equal((await a.account('seen-on-b')).windows.minute?.used, 1);
      assert.equal((await a.account('shared-co')).windows.minute?.used, 2, 'counted on both instances, read from one Redis');

      const revoked = await a.call<{ account: string }>(`/keys/${record.jti}/revoke`, 'POST');
      assert.deepEqual([revoked.status, revoked.body.account], [200, 'shared-co']);
      assert.deepEqual([await a.api(token), await a.api(token), await onB(token)], [401, 401, 401], 'both refuse it from the next request');
      assert.ok(Object.hasOwn(JSON.parse(readFileSync(adminRevoked, 'utf8')).revoked, record.jti));

      const redis = stack.redis as NonNullable<LimitedStack['redis']>;
      await redis.stop('SIGKILL');
      await redis.restart();
      await waitForReady(a.gateway.url, 20_000); // A ready again
      assert.deepEqual([await a.api(token), await a.api(token), await a.api(other)], [401, 401, 200], 'Redis lost it, the file kept it');
    } finally {
      await stopped(a.gateway);
      await stopped(b);
      await stack.close();
    }
  });
});

const runMain = (env: Record<string, string>) => runServiceToExit('gateway', { AUTH: 'off', ...env });

test('the gateway does not start with a token file missing, empty or invalid, nor without the admin listener, and says why (exit 2)', () => {
  const dir = temporaryDir('gw-admin-start-');
  const empty = join(dir, 'empty');
  writeFileSync(empty, '# no token yet\n');
  const short = join(dir, 'short');
  writeFileSync(short, 'ops:abc\n');
  for (const [env, reason] of [
    [{ ADMIN_TOKEN_FILE: join(dir, 'missing'), METRICS_PORT: '0' }, /ADMIN_TOKEN_FILE \/.*\/missing cannot be read: ENOENT/],
    [{ ADMIN_TOKEN_FILE: empty, METRICS_PORT: '0' }, /ADMIN_TOKEN_FILE \/.*\/empty: holds no token/],
    [{ ADMIN_TOKEN_FILE: short, METRICS_PORT: '0' }, /ADMIN_TOKEN_FILE \/.*\/short: line 1: the token is 3 characters, fewer than 32/],
    [{ ADMIN_TOKEN_FILE: empty }, /- ADMIN_TOKEN_FILE: needs METRICS_PORT: the admin API is served on the admin listener, never on the public port/],
    [{ ADMIN_REVOCATIONS_FILE: join(dir, 'revoked.json') }, /- ADMIN_REVOCATIONS_FILE: is the admin API's: it needs ADMIN_TOKEN_FILE/],
  ] as const) {
    const run = runMain({ PORT: '0', ...env });
    assert.equal(run.status, 2, `${JSON.stringify(env)}: ${run.stderr}`);
    assert.match(run.stderr, reason);
  }
});

test('a reload with a broken token file is refused: the tokens in force stay', async () => {
  const stack = await startLimitedStack({ redis: false });
  const settings = join(temporaryDir('gw-admin-reload-'), 'settings.env');
  writeFileSync(settings, '');
  const { gateway, call } = await adminGateway(stack, { WORKERS: '1', SETTINGS_FILE: settings });
  try {
    writeFileSync(settings, `ADMIN_TOKEN_FILE=${join(temporaryDir('gw-admin-reload-'), 'missing')}\n`);
    const from = gateway.records().length;
    process.kill(gateway.pid, 'SIGHUP');
    const refused = await gateway.waitForRecord((line) => String(line.msg).startsWith('reload refused'), 15_000, from);
    assert.match(String(refused.msg), /ADMIN_TOKEN_FILE .*missing cannot be read/);
    assert.equal((await call('/accounts')).status, 200, 'the token in force still opens the admin API');
  } finally {
    await stopped(gateway);
    await stack.close();
  }
});
