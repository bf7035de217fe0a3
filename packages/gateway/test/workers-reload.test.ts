import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { describe, test } from 'node:test';
import { commandSkipReason, selfSignedCertificate, temporaryDir } from '@animal-store/testkit';
import {
  type GatewayProcess,
  processRuns,
  PROXY_TEST_PATHS,
  requestOnFreshConnection,
  startGatewayProcess,
  startRecordingUpstream,
  writeDocument,
} from './support/index.js';

// Issue 30, point 5: SIGHUP replaces the workers one at a time with the settings read again, and
// no request in flight is lost or answered with an error.

const lineAfter = (gateway: GatewayProcess, count: number, msg: RegExp) => gateway.waitForRecord((record) => msg.test(String(record.msg)), 60_000, count);

/**
 * A keep-alive load on 32 connections to `url` until `done()` says so and 500 more requests have
 * been answered after it; resolves with what the clients saw.
 */
async function keepAliveLoad(url: string, done: () => boolean): Promise<{ failures: string[]; statuses: Map<number, number>; total: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  let total = 0;
  let after = 0;
  const giveUp = Date.now() + 120_000;
  const once = () =>
    new Promise<void>((resolve) => {
      const req = request(url, { agent }, (res) => {
        statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1);
        res.resume();
        res.on('end', resolve);
        res.on('error', (error) => (failures.push(error.message), resolve()));
      });
      req.on('error', (error: NodeJS.ErrnoException) => (failures.push(error.code ?? error.message), resolve()));
      req.end();
    });
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (after < 500 && Date.now() < giveUp) {
        await once();
        total += 1;
        if (done()) after += 1;
      }
    }),
  );
  agent.destroy();
  return { failures, statuses, total };
}

test('SIGHUP under a keep-alive load: zero failed requests, new workers, the new settings in force', async () => {
  const upstream = await startRecordingUpstream();
  const dir = temporaryDir('gw-reload-');
  const settingsFile = join(dir, 'settings.env');
  writeFileSync(settingsFile, `OPENAPI_FILE=${writeDocument(PROXY_TEST_PATHS)}\n`);
  const gateway = await startGatewayProcess({ AUTH: 'off', RATE_LIMITS: 'off', UPSTREAM_URL: upstream.url, SETTINGS_FILE: settingsFile });
  try {
    assert.equal((await requestOnFreshConnection(`${gateway.url}/v1/added`)).status, 404, 'not in the first document');
    let reloaded = false;
    const load = keepAliveLoad(`${gateway.url}/v1/echo`, () => reloaded);
    // Once the load runs: a new document, with one more operation, and CORS.
    await new Promise((resolve) => setTimeout(resolve, 300));
    writeFileSync(
      settingsFile,
      `OPENAPI_FILE=${writeDocument({ ...PROXY_TEST_PATHS, '/added': { get: { operationId: 'added' } } })}\nCORS_ORIGINS=https://app.example.test\n`,
    );
    const before = gateway.records().length;
    gateway.child.kill('SIGHUP');
    const done = await lineAfter(gateway, before, /^gateway reloaded$|^reload failed/);
    reloaded = true;
    const seen = await load;
    assert.equal(done.msg, 'gateway reloaded', JSON.stringify(done));
    console.log(`# ${seen.total} requests during the reload, ${seen.failures.length} failed`);
    assert.deepEqual(seen.failures, [], `failed requests out of ${seen.total}`);
    assert.deepEqual([...seen.statuses], [[200, seen.total]]);
    assert.ok(seen.total >= 1000, `a load of thousands of requests (${seen.total})`);

    const pids = done.pids as number[];
    assert.equal(pids.length, 2);
    assert.equal(pids.filter((pid) => gateway.workerPids.includes(pid)).length, 0, 'both workers were replaced');
    for (let i = 0; i < 4; i++) {
      const added = await requestOnFreshConnection(`${gateway.url}/v1/added`, { headers: { origin: 'https://app.example.test' } });
      assert.equal(added.status, 200, 'the new document is in force on every worker');
      assert.equal(added.headers['access-control-allow-origin'], 'https://app.example.test', 'and the new setting');
    }
    const deadline = Date.now() + 20_000;
    while (gateway.workerPids.some(processRuns) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(gateway.workerPids.filter(processRuns), [], 'the old workers exited');
    assert.equal(await gateway.stop(), 0);
  } finally {
    await gateway.stop('SIGKILL');
    await upstream.close();
  }
});

test('SIGHUP with invalid settings, or with a worker that cannot start on them: the running workers stay, the log says why', async () => {
  const upstream = await startRecordingUpstream();
  const settingsFile = join(temporaryDir('gw-reload-'), 'settings.env');
  writeFileSync(settingsFile, `OPENAPI_FILE=${writeDocument(PROXY_TEST_PATHS)}\n`);
  const gateway = await startGatewayProcess({ AUTH: 'off', RATE_LIMITS: 'off', UPSTREAM_URL: upstream.url, SETTINGS_FILE: settingsFile });
  try {
    writeFileSync(settingsFile, 'PORT=seventy\nUPSTREM_URL=http://127.0.0.1:1\n');
    let before = gateway.records().length;
    gateway.child.kill('SIGHUP');
    const refused = await lineAfter(gateway, before, /^reload refused/);
    assert.match(String(refused.msg), /PORT: /);
    assert.match(String(refused.msg), /UPSTREM_URL, which is not a setting of the gateway/);

    // Valid settings, but a document that cannot be read: the first new worker exits 2.
    writeFileSync(settingsFile, 'OPENAPI_FILE=/nonexistent/openapi.json\n');
    before = gateway.records().length;
    gateway.child.kill('SIGHUP');
    const failed = await lineAfter(gateway, before, /^reload failed|^gateway reloaded$/);
    assert.match(String(failed.msg), /^reload failed: worker \d+ \(pid \d+\) exited before it listened \(exit code 2\)/);
    assert.match(gateway.output(), /OPENAPI_FILE \/nonexistent\/openapi\.json: ENOENT/, "the worker's reason is on stderr");

    assert.deepEqual(gateway.workerPids.filter(processRuns), gateway.workerPids, 'the workers that ran still run');
    for (let i = 0; i < 4; i++) assert.equal((await requestOnFreshConnection(`${gateway.url}/v1/echo`)).status, 200);
    assert.equal(await gateway.stop(), 0);
  } finally {
    await gateway.stop('SIGKILL');
    await upstream.close();
  }
});

describe('a renewed TLS certificate', { skip: commandSkipReason('openssl', 'apt-get install openssl') }, () => {
  test('is served on new connections after SIGHUP', async () => {
    const upstream = await startRecordingUpstream();
    const first = selfSignedCertificate(temporaryDir('gw-tls-'));
    const renewed = selfSignedCertificate(temporaryDir('gw-tls-'));
    const dir = temporaryDir('gw-tls-');
    const certFile = join(dir, 'cert.pem');
    const keyFile = join(dir, 'key.pem');
    copyFileSync(first.certFile, certFile);
    copyFileSync(first.keyFile, keyFile);
    const gateway = await startGatewayProcess({
      AUTH: 'off',
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      TLS_CERT_FILE: certFile,
      TLS_KEY_FILE: keyFile,
    });
    const port = Number(new URL(gateway.url).port);
    const fingerprint = () =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({ port, host: '127.0.0.1', rejectUnauthorized: false }, () => {
          resolve(socket.getPeerCertificate().fingerprint256);
          socket.destroy();
        });
        socket.on('error', reject);
      });
    const fingerprintOf = (file: string) => new X509Certificate(readFileSync(file)).fingerprint256;
    try {
      assert.equal(await fingerprint(), fingerprintOf(first.certFile));
      copyFileSync(renewed.certFile, certFile);
      copyFileSync(renewed.keyFile, keyFile);
      const before = gateway.records().length;
      gateway.child.kill('SIGHUP');
      assert.equal((await lineAfter(gateway, before, /^gateway reloaded$|^reload failed/)).msg, 'gateway reloaded');
      for (let i = 0; i < 4; i++) assert.equal(await fingerprint(), fingerprintOf(renewed.certFile));
    } finally {
      await gateway.stop();
      await upstream.close();
    }
  });
});
