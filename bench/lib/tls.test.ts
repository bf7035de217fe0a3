import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { selfSignedCertificate, temporaryDir } from '@animal-store/testkit';
import { haproxySkipReason, startHaproxy } from './haproxy.js';
import { negotiated, tlsSkipReason, trustedCertificate, type BenchCertificate } from './tls.js';

/** An HTTPS server answering 200 `ok` with `certificate`, on a free loopback port; closed after the test. */
async function httpsServer(t: { after(fn: () => void): void }, certificate: Pick<BenchCertificate, 'certFile' | 'keyFile'>): Promise<string> {
  const server = createTlsServer({ cert: readFileSync(certificate.certFile), key: readFileSync(certificate.keyFile) }, (_req, res) => res.end('ok'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('the certificate the bench makes is trusted by its fetch, and no other self-signed one is', { skip: tlsSkipReason() }, async (t) => {
  const certificate = trustedCertificate(temporaryDir('bench-tls-'));
  const trusted = await httpsServer(t, certificate);
  const other = await httpsServer(t, selfSignedCertificate(temporaryDir('bench-tls-other-')));
  const answer = await fetch(`${trusted}/healthz`);
  assert.equal(answer.status, 200);
  assert.equal(await answer.text(), 'ok');
  await assert.rejects(fetch(`${other}/healthz`), (error: Error & { cause?: { code?: string } }) => error.cause?.code === 'DEPTH_ZERO_SELF_SIGNED_CERT');
  // What a Node client such as autocannon's agrees with it.
  assert.match(await negotiated(trusted), /^TLSv1\.3 TLS_[A-Z0-9_]+$/);
  // HAProxy's one PEM: the certificate, then its key.
  const combined = readFileSync(certificate.combinedFile, 'utf8');
  assert.ok(combined.startsWith(readFileSync(certificate.certFile, 'utf8').trimEnd()));
  assert.ok(combined.endsWith(readFileSync(certificate.keyFile, 'utf8')));
});

test('HAProxy terminates TLS with the combined PEM, in front of a plain HTTP upstream', { skip: tlsSkipReason() || haproxySkipReason() }, async (t) => {
  const dir = temporaryDir('bench-haproxy-tls-');
  const certificate = trustedCertificate(dir);
  const upstream = createServer((req, res) => res.end(`upstream ${req.url}`));
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  t.after(() => upstream.close());
  const haproxy = await startHaproxy(dir, 'haproxy-tls', `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, { tlsPem: certificate.combinedFile });
  t.after(() => haproxy.stop());
  assert.match(haproxy.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const answer = await fetch(`${haproxy.url}/v1/pets`);
  assert.equal(answer.status, 200);
  assert.equal(await answer.text(), 'upstream /v1/pets');
  assert.match(await negotiated(haproxy.url), /^TLSv1\.3 TLS_[A-Z0-9_]+$/);
});
