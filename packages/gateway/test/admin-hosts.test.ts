import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { capturedLog, startGateway, startLimitedStack, writeAdminTokens, type LimitedStack, type RunningGateway } from './support/index.js';

// Issue 39, point 3.6: the admin listener answered any `Host` (a DNS rebinding page could read
// /metrics and the console's files), and refused admin tokens left no log line and no metric.

/** One request to the admin listener with the `Host` header given (fetch will not send another's). */
function get(url: string, host: string | undefined, headers: Record<string, string> = {}): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { ...(host === undefined ? {} : { host }), ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode as number, type: String(res.headers['content-type']), body }));
    });
    req.on('error', reject).end();
  });
}

describe('the admin listener', () => {
  let stack: LimitedStack;
  let gateway: RunningGateway;
  const admin = writeAdminTokens('ops');
  const log = capturedLog();
  let base: string;
  let port: string;

  before(async () => {
    stack = await startLimitedStack({ redis: false });
    gateway = await startGateway(
      { ...stack.env, METRICS_PORT: '0', ADMIN_TOKEN_FILE: admin.file, ADMIN_HOSTS: 'admin.internal, Ops.Example' },
      undefined,
      undefined,
      {
        logger: log.logger,
      },
    );
    base = new URL(gateway.metricsUrl as string).origin;
    port = new URL(base).port;
  });
  after(async () => {
    await gateway?.close();
    await stack?.close();
  });

  test('answers to its own names: loopback, any address, ADMIN_HOSTS (any case, a trailing dot), no Host at all', async () => {
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      '10.1.2.3',
      `admin.internal:${port}`,
      'ops.example.',
      'OPS.EXAMPLE',
      undefined,
    ]) {
      assert.equal((await get(`${base}/metrics`, host)).status, 200, String(host));
    }
  });

  test('refuses any other Host name, on every path, with a clear error body', async () => {
    for (const path of ['/metrics', '/admin', '/admin/console.js', '/admin/config', '/nowhere']) {
      for (const host of [`rebind.attacker.example:${port}`, 'localhost.attacker.example', 'admin.internal.attacker.example']) {
        const res = await get(`${base}${path}`, host, admin.headers);
        assert.equal(res.status, 421, `${host} ${path}`);
        assert.equal(res.type, 'application/json');
        const body = JSON.parse(res.body) as { code: string; message: string; status: number };
        assert.equal(body.code, 'misdirected_request');
        assert.equal(body.status, 421);
        assert.match(body.message, /ADMIN_HOSTS/);
      }
    }
  });

  test('a refused admin token is one log line (never the token) and a count in /metrics', async () => {
    const wrong = `wrong-${'x'.repeat(40)}`;
    assert.equal((await get(`${base}/admin/config`, undefined, { authorization: `Bearer ${wrong}` })).status, 401);
    assert.equal((await get(`${base}/admin/config`, undefined)).status, 401);
    assert.equal((await get(`${base}/admin/config`, undefined, admin.headers)).status, 200);
    const lines = log
      .text()
      .split('\n')
      .filter((line) => line.includes('admin token refused'));
    assert.equal(lines.length, 2, log.text());
    assert.match(lines[0] as string, /"reason":"invalid"/);
    assert.match(lines[0] as string, /"ip":"127\.0\.0\.1"/);
    assert.match(lines[1] as string, /"reason":"missing"/);
    assert.equal(log.text().includes(wrong), false, 'the token sent is never logged');
    const metrics = (await get(`${base}/metrics`, undefined)).body;
    assert.match(metrics, /^gateway_admin_auth_failures_total\{reason="invalid"\} 1$/m);
    assert.match(metrics, /^gateway_admin_auth_failures_total\{reason="missing"\} 1$/m);
  });
});
