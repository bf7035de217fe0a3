import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import {
  createTestKeyring,
  PROXY_TEST_PATHS,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  writeDocument,
} from './support/index.js';

interface Line {
  readonly msg?: string;
  readonly requestId?: string;
  readonly [field: string]: unknown;
}

let keyring: Awaited<ReturnType<typeof createTestKeyring>>;
let upstream: RecordingUpstream;
let gateway: RunningGateway;
let output = '';

before(async () => {
  keyring = await createTestKeyring();
  upstream = await startRecordingUpstream();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      output += chunk.toString('utf8');
      done();
    },
  });
  gateway = await startGateway(
    { UPSTREAM_URL: upstream.url, OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS), JWKS_FILE: keyring.files.jwks, RATE_LIMITS: 'on' },
    undefined,
    undefined,
    { logger: pino({ level: 'info' }, sink) },
  );
});
after(async () => {
  await gateway?.close();
  await upstream?.close();
});

const lines = () =>
  output
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);

/** The access line of the request sent with `X-Request-Id: id`, once written (it follows the answer). */
async function lineOf(id: string): Promise<Line> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = lines().filter((line) => line.requestId === id && line.status !== undefined);
    if (found.length > 0) {
      assert.equal(found.length, 1, 'one line per request');
      return found[0] as Line;
    }
    if (Date.now() > deadline) throw new Error(`no access line for ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('one line per request: trace id, route template, plan, decision and upstream time; never the key', async () => {
  const { token } = await keyring.issue({ plan: 'business', sub: 'acme' });
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const forged = `${token.slice(0, -4)}AAAA`;
  const send = (id: string, path: string, authorization?: string, traceparent?: string) =>
    fetch(`${gateway.url}${path}`, {
      headers: { 'x-request-id': id, ...(authorization === undefined ? {} : { authorization }), ...(traceparent === undefined ? {} : { traceparent }) },
    }).then((res) => res.arrayBuffer().then(() => res.status));

  assert.equal(await send('log-ok', '/v1/echo?secret=no', `Bearer ${token}`, `00-${traceId}-00f067aa0ba902b7-01`), 200);
  assert.equal(await send('log-forged', '/v1/echo', `Bearer ${forged}`), 401);
  assert.equal(await send('log-none', '/v1/echo'), 401);
  assert.equal(await send('log-missing', '/v1/nowhere'), 404);

  const ok = await lineOf('log-ok');
  assert.equal(ok.traceId, traceId);
  assert.equal(ok.route, '/v1/echo');
  assert.equal(ok.url, '/v1/echo?secret=REDACTED', 'query values never reach the log (issue 19)');
  assert.equal(ok.status, 200);
  assert.equal(ok.outcome, 'proxied');
  assert.equal(ok.plan, 'business');
  assert.equal(ok.decision, 'allowed');
  assert.equal(ok.subject, 'acme');
  assert.equal(typeof ok.upstreamMs, 'number');
  assert.equal(typeof ok.ms, 'number');

  const forgedLine = await lineOf('log-forged');
  assert.equal(forgedLine.outcome, 'unauthorized');
  assert.equal(forgedLine.plan, 'anonymous', 'a bad key is charged to the anonymous limit');
  assert.equal(forgedLine.decision, 'allowed');
  assert.equal(forgedLine.upstreamMs, undefined, 'it never went upstream');
  assert.equal((await lineOf('log-none')).outcome, 'unauthorized');
  const missing = await lineOf('log-missing');
  assert.equal(missing.route, 'unmatched', 'an unknown path is no label of its own');
  assert.equal(missing.outcome, 'not_found');

  // Neither key, nor any of its parts, nor the signing key is anywhere in the log.
  for (const secret of [token, forged, ...token.split('.'), forged.split('.')[2] as string]) {
    assert.equal(output.includes(secret), false, `the log holds key material: ${secret.slice(0, 12)}…`);
  }
  const signing = JSON.parse(JSON.stringify(keyring.publicJwk())) as { x: string };
  assert.equal(output.includes(signing.x), false);
});

// Issue 19, keys never in logs.
test('a key sent in the query never reaches the log: the url keeps the names, every value REDACTED', async () => {
  const { token } = await keyring.issue({ plan: 'business', sub: 'query-key' });
  const res = await fetch(`${gateway.url}/v1/echo?api_key=${token}&limit=5&flag&=x`, {
    headers: { 'x-request-id': 'log-query-key', authorization: `Bearer ${token}` },
  });
  await res.arrayBuffer();
  const line = await lineOf('log-query-key');
  assert.equal(line.url, '/v1/echo?api_key=REDACTED&limit=REDACTED&flag&=REDACTED');
  for (const part of [token, ...token.split('.')]) assert.equal(output.includes(part), false, 'the key is nowhere in the log');
});

test("an expired key's line names its key id (its signature was good, only its time is up)", async () => {
  const { token, record } = await keyring.issue({ plan: 'pro', sub: 'expired-key' });
  // Signed by the keyring's own key with an `exp` in the past: the same key id, already expired.
  const expired = await keyring.sign(
    {},
    { ...(JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as object), exp: Math.floor(Date.now() / 1000) - 60 },
  );
  const res = await fetch(`${gateway.url}/v1/echo`, { headers: { 'x-request-id': 'log-expired', authorization: `Bearer ${expired}` } });
  await res.arrayBuffer();
  assert.equal(res.status, 401);
  const line = await lineOf('log-expired');
  assert.match(String(line.authFailure), /ERR_JWT_EXPIRED/);
  assert.equal(line.keyId, record.jti);
});
