import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { chromiumSkipReason, freePort, openPage, TEST_ENV } from '@animal-store/testkit';
import { requestOnFreshConnection, startGatewayProcess, startLimitedStack, writeAdminTokens, writePlansFile } from './support/index.js';

const skip = chromiumSkipReason();
if (skip !== false) console.log(`# skipped: the admin console's browser tests: ${skip}`);

/** A reverse proxy that serves `target` under `prefix` (`/ops/gateway/admin` → `target/admin`), as nginx's `location` would. */
async function prefixProxy(prefix: string, target: string): Promise<{ readonly url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (!path.startsWith(`${prefix}/`)) return void res.writeHead(404).end();
    const upstream = request(`${target}${path.slice(prefix.length)}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('the admin console, in headless Chromium, behind a reverse proxy and under PUBLIC_BASE_PATH', { skip }, () => {
  test('it loads, lists the accounts the traffic made, sorts and searches them, and a revoke from the page refuses the key', async () => {
    const stack = await startLimitedStack({ redis: false });
    const admin = writeAdminTokens('ops-console');
    const adminPort = await freePort();
    const gateway = await startGatewayProcess({
      ...stack.env,
      WORKERS: '1',
      PUBLIC_BASE_PATH: '/api',
      PLANS_FILE: writePlansFile({ plans: { free: { minute: 5, day: 100 } } }),
      METRICS_PORT: String(adminPort),
      ADMIN_TOKEN_FILE: admin.file,
      REVOCATIONS_FILE: stack.keyring.files.revoked,
    });
    const proxy = await prefixProxy('/ops/gateway', `http://127.0.0.1:${adminPort}`);
    const call = async (token: string) => (await requestOnFreshConnection(`${gateway.url}/api/echo`, { headers: { authorization: `Bearer ${token}` } })).status;
    const acme = await stack.keyring.issue({ plan: 'free', sub: 'acme' });
    const beta = await stack.keyring.issue({ plan: 'pro', sub: 'beta' });
    for (let i = 0; i < 3; i++) assert.equal(await call(acme.token), 200);
    assert.equal(await call(beta.token), 200);
    const page = await openPage(`${proxy.url}/admin`, { width: 1280, height: 1000 });
    try {
      await page.waitFor("document.readyState === 'complete' && document.getElementById('sign-in') !== null");
      await page.evaluate(`document.getElementById('token').value = ${JSON.stringify(admin.token)}; document.getElementById('sign-in').requestSubmit()`);
      const rows = () => page.evaluate<string[]>(`[...document.querySelectorAll('#accounts tbody tr')].map((row) => row.dataset.account)`);
      await page.waitFor(`document.querySelectorAll('#accounts tbody tr[data-account]').length === 2`);
      assert.deepEqual(await rows(), ['acme', 'beta']);
      assert.equal(await page.evaluate(`document.querySelector('tr[data-account="acme"]').children[3].textContent`), '3 / 5', 'its minute: 3 of 5');

      await page.evaluate(`document.querySelector('button[data-sort="account"]').click()`);
      assert.deepEqual(await rows(), ['beta', 'acme'], 'sorted, the other way');
      await page.evaluate(`const search = document.getElementById('search'); search.value = 'ACM'; search.dispatchEvent(new Event('input'))`);
      assert.deepEqual(await rows(), ['acme'], 'searched, whatever the case');

      await page.evaluate(`document.querySelector('tr[data-account="acme"]').click()`);
      await page.waitFor(`document.querySelector('#keys button[data-action="revoke"][data-key=${JSON.stringify(acme.record.jti)}]') !== null`);
      assert.deepEqual(
        await page.evaluate(`[...document.querySelectorAll('#windows meter')].map((meter) => [meter.value, meter.max])`),
        [
          [3, 5],
          [3, 100],
        ],
        'its windows, drawn as bars',
      );
      if (TEST_ENV.outputDir !== undefined) await page.screenshot(join(TEST_ENV.outputDir, 'admin-console.png'));
      await page.evaluate(`document.querySelector('#keys button[data-action="revoke"]').click()`);
      await page.waitFor(`document.getElementById('confirm').open`);
      assert.match(await page.evaluate<string>(`document.getElementById('confirm-text').textContent`), new RegExp(`^Revoke key ${acme.record.jti} of acme\\?`));
      assert.equal(await call(acme.token), 200, 'nothing revoked before the confirmation');
      await page.evaluate(`document.getElementById('confirm-ok').click()`);
      await page.waitFor(`document.getElementById('status').textContent === ${JSON.stringify(`Key ${acme.record.jti} is revoked.`)}`);
      assert.equal(await call(acme.token), 401, 'the key is refused from the next request');
      assert.equal(await call(beta.token), 200);
      await page.waitFor(`document.querySelector('#keys tr[data-key=${JSON.stringify(acme.record.jti)}]')?.children[5].textContent.startsWith('revoked')`);

      const loaded = await page.evaluate<string[]>(`performance.getEntriesByType('resource').map((entry) => entry.name)`);
      assert.ok(loaded.length >= 4, loaded.join(', '));
      assert.deepEqual(
        loaded.filter((name) => !name.startsWith(`${proxy.url}/admin`)),
        [],
        'nothing from elsewhere, every URL under the proxy prefix',
      );
      assert.deepEqual(page.console(), [], 'no error in the page');
      const audit = await gateway.waitForRecord((line) => line.audit === true && line.action === 'revoke');
      assert.deepEqual([audit.admin, audit.keyId], ['ops-console', acme.record.jti]);
    } finally {
      await page.close();
      await proxy.close();
      assert.equal(await gateway.stop(), 0);
      await stack.close();
    }
  });

  // Issue 39, point 3.8: accounts named `.` and `..` could not be opened (the URL was normalised),
  // times were 12-hour ones of no zone, and an account whose key is revoked showed as admitted.
  test('accounts named . and .. open; times are ISO 8601 with their offset; a revoked account is refused in the list', async () => {
    const stack = await startLimitedStack({ redis: false });
    const admin = writeAdminTokens('ops');
    const adminPort = await freePort();
    const gateway = await startGatewayProcess({
      ...stack.env,
      WORKERS: '1',
      METRICS_PORT: String(adminPort),
      ADMIN_TOKEN_FILE: admin.file,
      REVOCATIONS_FILE: stack.keyring.files.revoked,
    });
    const dots = await stack.keyring.issue({ plan: 'free', sub: '..', ttlMs: 86_400_000 });
    const dot = await stack.keyring.issue({ plan: 'free', sub: '.' });
    for (const { token } of [dots, dot])
      assert.equal((await requestOnFreshConnection(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
    const revoked = await fetch(`http://127.0.0.1:${adminPort}/admin/keys/${dot.record.jti}/revoke`, { method: 'POST', headers: admin.headers });
    assert.equal(revoked.status, 200);
    const page = await openPage(`http://127.0.0.1:${adminPort}/admin`, { width: 1280, height: 1000 });
    try {
      await page.waitFor("document.readyState === 'complete' && document.getElementById('sign-in') !== null");
      await page.evaluate(`document.getElementById('token').value = ${JSON.stringify(admin.token)}; document.getElementById('sign-in').requestSubmit()`);
      await page.waitFor(`document.querySelectorAll('#accounts tbody tr[data-account]').length === 2`);
      const nextOf = (account: string) =>
        page.evaluate<string>(`document.querySelector('tr[data-account=${JSON.stringify(account)}]').children[2].textContent`);
      assert.equal(await nextOf('.'), 'refused: its key is revoked', 'the list says so, unopened');
      assert.equal(await nextOf('..'), 'admitted');
      for (const name of ['..', '.']) {
        await page.evaluate(`document.querySelector('tr[data-account=${JSON.stringify(name)}]').click()`);
        await page.waitFor(
          `document.getElementById('account-name').textContent === ${JSON.stringify(name)} && document.querySelectorAll('#keys tbody tr').length === 1`,
        );
      }
      await page.evaluate(`document.querySelector('tr[data-account=".."]').click()`);
      await page.waitFor(`document.getElementById('account-name').textContent === '..' && document.querySelectorAll('#keys tbody tr').length === 1`);
      const times = await page.evaluate<string[]>(
        `[...document.querySelectorAll('#windows tbody tr td:last-child'), document.querySelector('#keys tbody tr').children[3]].map((cell) => cell.textContent)`,
      );
      assert.ok(times.length >= 3, times.join(', '));
      for (const time of times) assert.match(time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
      assert.deepEqual(page.console(), [], 'no error in the page');
    } finally {
      await page.close();
      await gateway.stop();
      await stack.close();
    }
  });

  test('a wrong token is refused on the page, and nothing of the API is shown', async () => {
    const stack = await startLimitedStack({ redis: false });
    const admin = writeAdminTokens('ops');
    const adminPort = await freePort();
    const gateway = await startGatewayProcess({ ...stack.env, WORKERS: '1', METRICS_PORT: String(adminPort), ADMIN_TOKEN_FILE: admin.file });
    const page = await openPage(`http://127.0.0.1:${adminPort}/admin`);
    try {
      await page.waitFor("document.readyState === 'complete' && document.getElementById('token') !== null");
      await page.evaluate(`document.getElementById('token').value = 'not-the-token-${'x'.repeat(32)}'; document.getElementById('sign-in').requestSubmit()`);
      await page.waitFor(`document.getElementById('sign-in-error').textContent.includes('not one of ADMIN_TOKEN_FILE')`);
      assert.deepEqual(await page.evaluate(`[document.getElementById('console').hidden, sessionStorage.length]`), [true, 0]);
    } finally {
      await page.close();
      await gateway.stop();
      await stack.close();
    }
  });
});
