import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { runServiceToExit, startService } from '@animal-store/testkit';
import { createTestKeyring, PROXY_TEST_PATHS, startRecordingUpstream, writeDocument } from './support/index.js';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

const runMain = (env: Record<string, string>) => runServiceToExit('gateway', env);

test('an invalid configuration exits 2 and names every problem', () => {
  const run = runMain({ PORT: 'x', UPSTREAM_URL: 'not a url', TRUST_PROXY: '300.1.1.1', ENFORCE_SUNSET: 'perhaps' });
  assert.equal(run.status, 2, run.stderr);
  for (const name of ['PORT', 'UPSTREAM_URL', 'TRUST_PROXY', 'ENFORCE_SUNSET']) assert.match(run.stderr, new RegExp(`- ${name}: `));
});

test('timeouts that cannot work together exit 2, naming the settings (issue 39, 2.7)', () => {
  const run = runMain({
    PORT: '0',
    AUTH: 'off',
    RATE_LIMITS: 'off',
    SHUTDOWN_TIMEOUT_MS: '1000',
    HEADERS_TIMEOUT_MS: '60000',
    REDIS_COMMAND_TIMEOUT_MS: '20',
  });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /- SHUTDOWN_TIMEOUT_MS: 1000 is shorter than KEEP_ALIVE_TIMEOUT_MS \(5000\)/);
  assert.match(run.stderr, /- HEADERS_TIMEOUT_MS: 60000 is above REQUEST_TIMEOUT_MS \(30000\)/);
  assert.match(run.stderr, /- REDIS_COMMAND_TIMEOUT_MS: 20 is below 100/);
});

test('an unusable OpenAPI document exits 2 and says why', () => {
  const missing = runMain({ AUTH: 'off', OPENAPI_FILE: '/nonexistent/openapi.json' });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /OPENAPI_FILE \/nonexistent\/openapi\.json: ENOENT/);
  const wrong = runMain({ AUTH: 'off', OPENAPI_FILE: fileURLToPath(new URL('../package.json', import.meta.url)) });
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /not a usable OpenAPI document/);
});

test('a REVOCATIONS_FILE that cannot be read at start exits 2: a wrong path must not mean "nothing is revoked"', async () => {
  const keyring = await createTestKeyring();
  const missing = runMain({ JWKS_FILE: keyring.files.jwks, REVOCATIONS_FILE: '/nonexistent/revoked.json' });
  assert.equal(missing.status, 2, missing.stderr);
  assert.match(missing.stderr, /REVOCATIONS_FILE \/nonexistent\/revoked\.json cannot be read/);
  const notAList = runMain({ JWKS_FILE: keyring.files.jwks, REVOCATIONS_FILE: keyring.files.jwks });
  assert.equal(notAList.status, 2, notAList.stderr);
  assert.match(notAList.stderr, /expected \{"revoked"/);
});

// The one test that runs the gateway from its sources through tsx, as `npm start` and a developer
// do: the development path still starts, serves and stops.
test('SIGTERM lets the request in flight finish, then exits 0 (from the sources, through tsx)', async () => {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let arrived: () => void = () => {};
  const arrival = new Promise<void>((resolve) => (arrived = resolve));
  const upstream = await startRecordingUpstream({
    '/v1/echo': (_req, res) => {
      arrived();
      void held.then(() => res.end('{"late":true}'));
    },
  });
  const gateway = await startService({
    entry: MAIN,
    env: { PORT: '0', AUTH: 'off', UPSTREAM_URL: upstream.url, OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS) },
  });
  try {
    const inFlight = fetch(`${gateway.url}/v1/echo`);
    await arrival;
    const exitCode = gateway.stop('SIGTERM');
    while (!gateway.output().includes('gateway draining')) await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    const res = await inFlight;
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { late: true });
    assert.equal(await exitCode, 0, gateway.output());
    assert.match(gateway.output(), /"msg":"gateway draining"[\s\S]*"msg":"gateway stopped"/);
  } finally {
    await upstream.close();
  }
});

test('a JWKS_FILE that cannot be read exits 2 and names the variable', () => {
  const run = runMain({ JWKS_FILE: '/nonexistent/public/jwks.json' });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /JWKS_FILE \/nonexistent\/public\/jwks\.json cannot be read as a key set: ENOENT/);
});

test('a port in use: exit 1 with what to do, no stack trace', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  try {
    const run = runMain({ AUTH: 'off', PORT: String((holder.address() as AddressInfo).port) });
    assert.equal(run.status, 1, run.stderr);
    assert.match(
      run.stdout,
      /"msg":"gateway cannot listen on 127\.0\.0\.1:\d+: the port is already in use by another program; stop it, or set PORT to another port \(PORT=0 picks a free one\)"/,
    );
    assert.doesNotMatch(run.stdout, /"stack"/);
  } finally {
    holder.close();
  }
});

test('npm run gateway takes relative file paths from where it was typed, not from its workspace', async () => {
  const keyring = await createTestKeyring();
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const upstream = await startRecordingUpstream();
  // Typed at the repository's root, as the docs do; npm runs the script in packages/gateway.
  const gateway = await startService({
    command: ['npm', 'run', '--silent', 'gateway'],
    cwd: root,
    env: {
      PORT: '0',
      UPSTREAM_URL: upstream.url,
      JWKS_FILE: relative(root, keyring.files.jwks),
      REVOCATIONS_FILE: relative(root, keyring.files.revoked),
      OPENAPI_FILE: relative(root, writeDocument(PROXY_TEST_PATHS)),
      PLANS_FILE: 'packages/gateway/plans/plans.json',
      HOME: process.env.HOME ?? '/tmp',
    },
    timeoutMs: 30_000,
  });
  try {
    const { token } = await keyring.issue();
    assert.equal((await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
  } finally {
    await gateway.stop();
    await upstream.close();
  }
});

test('SHADOW_PLANS naming no plan of PLANS_FILE exits 2 and names it: a typo must not enforce the plan meant to be trialled', async () => {
  const keyring = await createTestKeyring();
  const run = runMain({ JWKS_FILE: keyring.files.jwks, SHADOW_PLANS: 'free, nosuchplan' });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /SHADOW_PLANS names no plan of PLANS_FILE \S+: nosuchplan\n/);
});
