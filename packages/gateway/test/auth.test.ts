import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import {
  claimsFor,
  createTestKeyring,
  hmacWithPublicKey,
  PROXY_TEST_PATHS,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  unsignedToken,
  writeDocument,
} from './support/index.js';

const GENERIC = 'A valid API key is required: Authorization: Bearer <API key>.';

describe('API keys at the gateway', () => {
  let keyring: Awaited<ReturnType<typeof createTestKeyring>>;
  let stagingKeyring: Awaited<ReturnType<typeof createTestKeyring>>;
  let upstream: RecordingUpstream;
  let gateway: RunningGateway;
  let good: string;
  /** The gateway's clock runs this far ahead: how the tests skip the JWKS file's 1 s check interval. */
  let ahead = 0;
  const call = (authorization?: string) => fetch(`${gateway.url}/v1/echo`, { headers: authorization === undefined ? {} : { authorization } });

  before(async () => {
    keyring = await createTestKeyring();
    stagingKeyring = await createTestKeyring('animal-store-staging');
    upstream = await startRecordingUpstream();
    gateway = await startGateway(
      {
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
        JWKS_FILE: keyring.files.jwks,
        REVOCATIONS_FILE: keyring.files.revoked,
      },
      () => Date.now() + ahead,
    );
    good = (await keyring.issue({ plan: 'business', sub: 'acme' })).token;
  });
  after(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  test('a valid key passes, and the upstream learns who called from the gateway alone', async () => {
    const res = await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${good}`, 'x-api-plan': 'enterprise', 'x-api-subject': 'root' } });
    assert.equal(res.status, 200);
    const seen = ((await res.json()) as { headers: Record<string, string> }).headers;
    assert.equal(seen['x-api-subject'], 'acme');
    assert.equal(seen['x-api-plan'], 'business');
    assert.match(seen['x-api-key-id'] ?? '', /^[A-Za-z0-9_-]{16}$/);
    assert.equal(seen.authorization, undefined, 'the credential stays at the gateway');
  });

  test('the scheme name is case-insensitive', async () => {
    assert.equal((await call(`bearer ${good}`)).status, 200);
  });

  const CASES: [name: string, authorization: () => Promise<string | undefined>, tokenSent: boolean][] = [
    ['missing header', async () => undefined, false],
    ['empty header', async () => '', false],
    ['wrong scheme', async () => `Basic ${Buffer.from('a:b').toString('base64')}`, false],
    ['scheme without token', async () => 'Bearer', false],
    ['malformed token', async () => 'Bearer not.a-jws', true],
    ['garbage segments', async () => 'Bearer a.b.c', true],
    ['bad signature', async () => `Bearer ${good.slice(0, -4)}AAAA`, true],
    ['alg none', async () => `Bearer ${unsignedToken(claimsFor())}`, true],
    ['HMAC signed with the public key', async () => `Bearer ${hmacWithPublicKey(keyring.publicJwk(), claimsFor())}`, true],
    ['unknown kid', async () => `Bearer ${await keyring.sign({ kid: 'no-such-kid' }, claimsFor())}`, true],
    ['wrong typ', async () => `Bearer ${await keyring.sign({ typ: 'JWT' }, claimsFor())}`, true],
    ['no typ', async () => `Bearer ${await keyring.sign({ typ: undefined }, claimsFor())}`, true],
    ['wrong issuer', async () => `Bearer ${await keyring.sign({}, claimsFor({ iss: 'someone-else' }))}`, true],
    ['staging key in production (audience)', async () => `Bearer ${(await stagingKeyring.issue()).token}`, true],
    ['signed by another keyring', async () => `Bearer ${await stagingKeyring.sign({ kid: keyring.publicJwk().kid }, claimsFor())}`, true],
    ['expired', async () => `Bearer ${await keyring.sign({}, claimsFor({ exp: Math.floor(Date.now() / 1000) - 60 }))}`, true],
    ['not yet valid', async () => `Bearer ${await keyring.sign({}, claimsFor({ nbf: Math.floor(Date.now() / 1000) + 3600 }))}`, true],
    ['missing jti', async () => `Bearer ${await keyring.sign({}, claimsFor({ jti: undefined }))}`, true],
    ['missing sub', async () => `Bearer ${await keyring.sign({}, claimsFor({ sub: undefined }))}`, true],
    ['a plan name no header can carry', async () => `Bearer ${await keyring.sign({}, claimsFor({ plan: 'gold\r\nx-api-subject: root' }))}`, true],
    ['token too long', async () => `Bearer ${'a'.repeat(3000)}.${'b'.repeat(1000)}.${'c'.repeat(100)}`, true],
  ];

  for (const [name, authorization, tokenSent] of CASES) {
    test(`401 unauthorized: ${name}`, async () => {
      const before = upstream.requests.length;
      const res = await call(await authorization());
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('www-authenticate'), tokenSent ? 'Bearer error="invalid_token"' : 'Bearer');
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.deepEqual(await res.json(), { code: 'unauthorized', message: GENERIC, status: 401 });
      assert.equal(upstream.requests.length, before, 'the upstream never sees it');
    });
  }

  test('with RATE_LIMITS=off no plans file is read: a key of any plan passes, its plan told as it is (issue 39, 3.1)', async () => {
    const res = await call(`Bearer ${await keyring.sign({}, claimsFor({ plan: 'platinum' }))}`);
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { headers: Record<string, string> }).headers['x-api-plan'], 'platinum');
  });

  test('401 unauthorized, saying why: a key whose sub no header can carry is never dispatched', async () => {
    const before = upstream.requests.length;
    for (const sub of ['Łódź-日本語', 'alice ', 'tab\there', 'nul\u0000', 'del\u007f', 'crlf\r\nx-api-plan: enterprise']) {
      const res = await call(`Bearer ${await keyring.sign({}, claimsFor({ sub, jti: `uncarriable-${before}` }))}`);
      assert.equal(res.status, 401, JSON.stringify(sub));
      assert.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
      const body = (await res.json()) as { code: string; message: string; status: number };
      assert.equal(body.code, 'unauthorized');
      assert.equal(body.status, 401);
      assert.match(body.message, /subject \(sub\) holds characters an HTTP header cannot carry/);
    }
    assert.equal(upstream.requests.length, before, 'the upstream never sees them');
    assert.equal((await call(`Bearer ${good}`)).status, 200);
  });

  test('a revoked key is refused from the very next request, though its verification is cached', async () => {
    const { token, record } = await keyring.issue({ sub: 'to-revoke' });
    assert.equal((await call(`Bearer ${token}`)).status, 200);
    const { revokeKey } = await import('../src/keyring/index.js');
    revokeKey(keyring.dir, record.jti);
    const res = await call(`Bearer ${token}`);
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
    // Deleting the deny-list must not bring revoked keys back; an emptied list does, on purpose.
    const saved = readFileSync(keyring.files.revoked);
    rmSync(keyring.files.revoked);
    try {
      await setImmediate(); // the file is looked at once per event-loop turn
      assert.equal((await call(`Bearer ${token}`)).status, 401, 'the last list stands while the file is gone');
      writeFileSync(keyring.files.revoked, JSON.stringify({ revoked: {} }));
      await setImmediate();
      assert.equal((await call(`Bearer ${token}`)).status, 200);
    } finally {
      writeFileSync(keyring.files.revoked, saved);
    }
    assert.equal((await call(`Bearer ${token}`)).status, 401);
  });

  test('rotation: keys of the old and the new kid both work; a retired kid stops working', async () => {
    const { rotateKey, retireKey } = await import('../src/keyring/index.js');
    const oldKid = keyring.publicJwk().kid as string;
    const before = (await keyring.issue({ sub: 'old-kid' })).token;
    assert.equal((await call(`Bearer ${before}`)).status, 200);
    await rotateKey(keyring.dir);
    ahead += 1001; // the JWKS file is looked at once a second
    const after = (await keyring.issue({ sub: 'new-kid' })).token;
    assert.equal((await call(`Bearer ${after}`)).status, 200, 'new kid');
    assert.equal((await call(`Bearer ${before}`)).status, 200, 'old kid still');
    retireKey(keyring.dir, oldKid);
    ahead += 1001;
    assert.equal((await call(`Bearer ${before}`)).status, 401, 'retired kid, even though it was cached');
    assert.equal((await call(`Bearer ${after}`)).status, 200);
  });

  test('operations endpoints need no key', async () => {
    assert.equal((await fetch(`${gateway.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${gateway.url}/readyz`)).status, 200);
  });
});
