import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  claimsFor,
  createTestKeyring,
  PROXY_TEST_PATHS,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  writeDocument,
} from './support/index.js';

type Mode = 'ok' | 'down' | 'slow' | 'garbage';

/** A key server whose behaviour the test switches, counting the requests it gets. */
async function startKeyServer(jwks: () => string) {
  let mode: Mode = 'ok';
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits += 1;
    if (mode === 'slow') return; // never answers
    if (mode === 'down') return res.socket?.destroy();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(mode === 'garbage' ? '{"keys": "not a list"' : jwks());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`,
    setMode: (next: Mode) => (mode = next),
    hits: () => hits,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('remote JWKS (JWKS_URL)', () => {
  let keyring: Awaited<ReturnType<typeof createTestKeyring>>;
  let keyServer: Awaited<ReturnType<typeof startKeyServer>>;
  let upstream: RecordingUpstream;
  let gateway: RunningGateway;
  const call = (token: string) => fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } });

  before(async () => {
    keyring = await createTestKeyring();
    keyServer = await startKeyServer(() => readFileSync(keyring.files.jwks, 'utf8'));
    upstream = await startRecordingUpstream();
    gateway = await startGateway({
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      JWKS_URL: keyServer.url,
      JWKS_TIMEOUT_MS: '200',
      JWKS_COOLDOWN_MS: '60000',
    });
  });
  after(async () => {
    await gateway?.close();
    await upstream?.close();
    await keyServer?.close();
  });

  test('keys verify against the fetched set', async () => {
    assert.equal((await call((await keyring.issue()).token)).status, 200);
    assert.equal(keyServer.hits(), 1);
  });

  test('a flood of random kids costs at most one refetch per cooldown', async () => {
    const before = keyServer.hits();
    const answers = await Promise.all(Array.from({ length: 50 }, async (_, i) => (await call(await keyring.sign({ kid: `random-${i}` }, claimsFor()))).status));
    assert.ok(answers.every((status) => status === 401));
    assert.ok(keyServer.hits() - before <= 1, `refetched ${keyServer.hits() - before} times`);
  });

  test('while the key server is down: known keys keep working, and unknown kids are 401, never 200', async () => {
    keyServer.setMode('down');
    const fresh = (await keyring.issue({ sub: 'fresh' })).token; // same kid: the cached key set verifies it
    assert.equal((await call(fresh)).status, 200);
    assert.equal((await call(await keyring.sign({ kid: 'unknown-during-outage' }, claimsFor()))).status, 401);
  });

  for (const mode of ['down', 'slow', 'garbage'] as const) {
    test(`a gateway that has no key set yet and a key server that is ${mode} answers 503 auth_unavailable`, async () => {
      keyServer.setMode(mode);
      const cold = await startGateway({
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
        JWKS_URL: keyServer.url,
        JWKS_TIMEOUT_MS: '200',
      });
      try {
        const res = await fetch(`${cold.url}/v1/echo`, { headers: { authorization: `Bearer ${(await keyring.issue()).token}` } });
        assert.equal(res.status, 503);
        assert.equal(res.headers.get('retry-after'), '1');
        assert.deepEqual(await res.json(), { code: 'auth_unavailable', message: 'API keys cannot be checked right now; retry shortly.', status: 503 });
      } finally {
        await cold.close();
      }
    });
  }
});
