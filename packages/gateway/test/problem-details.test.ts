import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freePort } from '@animal-store/testkit';
import {
  createTestKeyring,
  PROXY_TEST_PATHS,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  writeDocument,
  writePlansFile,
} from './support/index.js';

const PROBLEM = { accept: 'application/problem+json' };
const IANA = 'https://iana.org/assignments/http-problem-types';

async function problemOf(res: Response): Promise<Record<string, unknown>> {
  assert.equal(res.headers.get('content-type'), 'application/problem+json');
  return (await res.json()) as Record<string, unknown>;
}

describe("RFC 9457 problem details for the gateway's own errors, on request", () => {
  let upstream: RecordingUpstream;
  let gateway: RunningGateway;
  let keyring: Awaited<ReturnType<typeof createTestKeyring>>;

  before(async () => {
    upstream = await startRecordingUpstream();
    keyring = await createTestKeyring();
    gateway = await startGateway({
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      JWKS_FILE: keyring.files.jwks,
      PLANS_FILE: writePlansFile({ plans: { free: { minute: 2, day: 1000 } }, ban: { strikes: 3, strikeWindowSeconds: 60, banSeconds: 120 } }),
      UPSTREAM_TIMEOUT_MS: '200',
      BODY_LIMIT_BYTES: '16',
    });
  });
  after(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  test('without the Accept header, errors keep the {code, message, status} body', async () => {
    for (const accept of [undefined, 'application/json', '*/*', 'application/json, application/problem+json;q=0.5']) {
      const res = await fetch(`${gateway.url}/v1/echo`, { headers: accept === undefined ? {} : { accept } });
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.deepEqual(await res.json(), { code: 'unauthorized', message: 'A valid API key is required: Authorization: Bearer <API key>.', status: 401 });
    }
  });

  test('401, 404, 413, 502 and 504 as about:blank problems, headers kept', async () => {
    const { token } = await keyring.issue({ plan: 'pro', sub: 'problems' });
    const auth = { ...PROBLEM, authorization: `Bearer ${token}` };
    const unauthorized = await fetch(`${gateway.url}/v1/echo`, { headers: PROBLEM });
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.headers.get('www-authenticate'), 'Bearer');
    assert.ok(unauthorized.headers.get('ratelimit') !== null);
    assert.deepEqual(await problemOf(unauthorized), {
      type: 'about:blank',
      title: 'Unauthorized',
      status: 401,
      detail: 'A valid API key is required: Authorization: Bearer <API key>.',
      code: 'unauthorized',
    });
    const notFound = await fetch(`${gateway.url}/v1/nothing`, { headers: PROBLEM });
    assert.deepEqual(await problemOf(notFound), {
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      detail: 'No operation at this path.',
      code: 'not_found',
    });
    const tooLarge = await fetch(`${gateway.url}/v1/echo`, { method: 'POST', headers: auth, body: 'x'.repeat(64) });
    assert.equal(tooLarge.status, 413);
    assert.deepEqual(Object.keys(await problemOf(tooLarge)), ['type', 'title', 'status', 'detail', 'code']);
    const badGateway = await fetch(`${gateway.url}/v1/reset`, { headers: auth });
    assert.equal((await problemOf(badGateway)).code, 'bad_gateway');
    const timeout = await fetch(`${gateway.url}/v1/hold`, { headers: auth });
    assert.deepEqual(await problemOf(timeout), {
      type: 'about:blank',
      title: 'Gateway Timeout',
      status: 504,
      detail: 'The upstream service did not answer in time.',
      code: 'upstream_timeout',
    });
  });

  test("429: the draft's quota-exceeded with the violated policies, then abnormal-usage-detected for the ban", async () => {
    const { token } = await keyring.issue({ plan: 'free', sub: 'problem-429' });
    const send = () => fetch(`${gateway.url}/v1/echo`, { headers: { ...PROBLEM, authorization: `Bearer ${token}` } });
    assert.equal((await send()).status, 200);
    assert.equal((await send()).status, 200);
    const limited = await send();
    assert.equal(limited.status, 429);
    assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
    assert.deepEqual(await problemOf(limited), {
      type: `${IANA}#quota-exceeded`,
      title: 'Request cannot be satisfied as assigned quota has been exceeded',
      status: 429,
      detail: 'Rate limit exceeded: retry after the time in Retry-After.',
      code: 'rate_limited',
      'violated-policies': ['minute'],
    });
    let banned: Response = limited;
    for (let i = 0; i < 5 && banned.status === 429; i++) {
      banned = await send();
      const problem = await problemOf(banned);
      if (problem.code === 'key_banned') {
        assert.equal(problem.type, `${IANA}#abnormal-usage-detected`);
        assert.equal(problem.title, 'Request not satisfied due to detection of abnormal request pattern');
        assert.equal(problem.status, 429);
        assert.match(String(problem.detail), /banned for \d+ s/);
        return;
      }
    }
    assert.fail('the key was never banned');
  });

  test('503: temporary-reduced-capacity when limits cannot be checked (Redis away, policy closed)', async () => {
    const away = await startGateway(
      {
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
        JWKS_FILE: keyring.files.jwks,
        REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
        RATE_LIMIT_ON_REDIS_FAILURE: 'closed',
      },
      undefined,
      undefined,
      { waitForRedis: false },
    );
    try {
      const { token } = await keyring.issue({ plan: 'pro', sub: 'problem-503' });
      const res = await fetch(`${away.url}/v1/echo`, { headers: { ...PROBLEM, authorization: `Bearer ${token}` } });
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '1');
      const problem = await problemOf(res);
      assert.equal(problem.type, `${IANA}#temporary-reduced-capacity`);
      assert.equal(problem.title, 'Request cannot be satisfied due to temporary server capacity constraints');
      assert.ok(problem.code === 'rate_limit_unavailable' || problem.code === 'auth_unavailable', String(problem.code));
    } finally {
      await away.close();
    }
  });
});
