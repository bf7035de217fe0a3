import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, createClient, type ClientOptions } from './index.js';

interface Sent {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

type Reply = Response | Error | ((sent: Sent) => Response);

/** A fetch that answers from a script and records what it was sent; the sleeps are recorded, never waited. */
function scripted(replies: Reply[], extra: Partial<ClientOptions> = {}) {
  const sent: Sent[] = [];
  const slept: number[] = [];
  const fakeFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const request: Sent = { url: String(input), method: init?.method ?? 'GET', headers, body: init?.body as string | undefined };
    sent.push(request);
    init?.signal?.throwIfAborted();
    const reply = replies.shift();
    if (reply === undefined) throw new Error('the script ran out of replies');
    if (reply instanceof Error) throw reply;
    const response = typeof reply === 'function' ? reply(request) : reply;
    Object.defineProperty(response, 'url', { value: request.url });
    return response;
  };
  const client = createClient({
    baseUrl: 'http://api.test/v1',
    apiKey: 'k3y',
    fetch: fakeFetch as typeof fetch,
    random: () => 0.5,
    sleep: async (ms) => {
      slept.push(ms);
    },
    ...extra,
  });
  return { client, sent, slept };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const error = (status: number, code: string, headers: Record<string, string> = {}) => json(status, { code, message: `${code}!`, status }, headers);
const pet = { id: 1, name: 'Rex', categoryId: 2 };

test('a 429 rate_limited is retried after exactly Retry-After, with the same request', async () => {
  const { client, sent, slept } = scripted([error(429, 'rate_limited', { 'retry-after': '3' }), json(200, [pet])]);
  assert.deepEqual(await client.listPets({ status: 'available', limit: 5 }), [pet]);
  assert.deepEqual(slept, [3000]);
  assert.equal(sent.length, 2);
  assert.equal(sent[0]?.url, 'http://api.test/v1/pets?limit=5&status=available');
  assert.equal(sent[1]?.url, sent[0]?.url);
  assert.equal(sent[0]?.headers.authorization, 'Bearer k3y');
});

test('a 429 whose Retry-After exceeds maxDelayMs throws at once, with retryAfterSeconds', async () => {
  const { client, sent, slept } = scripted([error(429, 'rate_limited', { 'retry-after': '30', 'x-request-id': 'r-1' })], { retry: { maxDelayMs: 10_000 } });
  const failure = await client.listPets().catch((caught: unknown) => caught);
  assert.ok(failure instanceof ApiError);
  assert.deepEqual(
    [failure.status, failure.code, failure.message, failure.retryAfterSeconds, failure.requestId],
    [429, 'rate_limited', 'rate_limited!', 30, 'r-1'],
  );
  assert.equal(sent.length, 1);
  assert.deepEqual(slept, []);
});

test('a 429 key_banned is never retried', async () => {
  const { client, sent, slept } = scripted([error(429, 'key_banned', { 'retry-after': '1' })]);
  await assert.rejects(client.getPet(1), (caught: ApiError) => caught.code === 'key_banned' && caught.retryAfterSeconds === 1);
  assert.equal(sent.length, 1);
  assert.deepEqual(slept, []);
});

test('502, 503 and 504 on a GET back off with full jitter and stop after maxAttempts', async () => {
  const { client, sent, slept } = scripted([
    error(502, 'bad_gateway'),
    error(503, 'auth_unavailable'),
    error(504, 'upstream_timeout'),
    error(504, 'upstream_timeout'),
  ]);
  await assert.rejects(client.getPet(7), (caught: ApiError) => caught.status === 504 && caught.code === 'upstream_timeout');
  assert.equal(sent.length, 4);
  assert.deepEqual(slept, [50, 100, 200]); // random() = 0.5 of 100, 200, 400
});

test('a network error on a GET is retried; the answer after it is returned', async () => {
  const { client, sent, slept } = scripted([new TypeError('fetch failed'), json(200, pet)]);
  assert.deepEqual(await client.getPet(1), pet);
  assert.equal(sent.length, 2);
  assert.deepEqual(slept, [50]);
});

test('a network error on every attempt throws the last one', async () => {
  const { client, sent } = scripted([new TypeError('a'), new TypeError('b'), new TypeError('c'), new TypeError('d')]);
  await assert.rejects(client.listPets(), { name: 'TypeError', message: 'd' });
  assert.equal(sent.length, 4);
});

test('createPet sends one Idempotency-Key per call and the same one on each of its retries', async () => {
  const { client, sent, slept } = scripted([new TypeError('socket hang up'), error(504, 'upstream_timeout'), json(201, pet), json(201, { ...pet, id: 2 })]);
  assert.deepEqual(await client.createPet({ name: 'Rex', categoryId: 2 }), pet);
  await client.createPet({ name: 'Rex', categoryId: 2 });
  const keys = sent.map((request) => request.headers['idempotency-key']);
  assert.equal(keys.length, 4);
  assert.match(keys[0] ?? '', /^[0-9a-f-]{36}$/);
  assert.equal(keys[1], keys[0]);
  assert.equal(keys[2], keys[0]);
  assert.notEqual(keys[3], keys[0]);
  assert.deepEqual(sent.map((request) => [request.method, request.body, request.headers['content-type']])[0], [
    'POST',
    '{"name":"Rex","categoryId":2}',
    'application/json',
  ]);
  assert.deepEqual(slept, [50, 100]);
});

test('createPet uses the Idempotency-Key it is given', async () => {
  const { client, sent } = scripted([error(502, 'bad_gateway'), json(201, pet)]);
  await client.createPet({ name: 'Rex', categoryId: 2 }, { idempotencyKey: 'order-7' });
  assert.deepEqual(
    sent.map((request) => request.headers['idempotency-key']),
    ['order-7', 'order-7'],
  );
});

test('other 4xx and 500 are not retried', async () => {
  for (const [status, code] of [
    [400, 'invalid_body'],
    [401, 'unauthorized'],
    [404, 'pet_not_found'],
    [413, 'payload_too_large'],
    [422, 'idempotency_key_reused'],
    [500, 'internal_error'],
    [501, 'not_implemented'],
  ] as const) {
    const { client, sent } = scripted([error(status, code)]);
    await assert.rejects(client.createPet({ name: 'Rex', categoryId: 2 }), (caught: ApiError) => caught.status === status && caught.code === code);
    assert.equal(sent.length, 1, `${status} ${code}`);
  }
});

test('maxAttempts 1 turns retries off', async () => {
  const { client, sent } = scripted([error(429, 'rate_limited', { 'retry-after': '1' })], { retry: { maxAttempts: 1 } });
  await assert.rejects(client.listPets(), { code: 'rate_limited' });
  assert.equal(sent.length, 1);
});

test('an answer that is not the Error body still throws an ApiError with its status', async () => {
  const { client } = scripted([new Response('<html>bad gateway</html>', { status: 418 })]);
  await assert.rejects(
    client.listPets(),
    (caught: ApiError) => caught.status === 418 && caught.code === 'unexpected_response' && caught.message.includes('bad gateway'),
  );
});

test('an AbortSignal aborts a call while it waits to retry, and before it starts', async () => {
  const controller = new AbortController();
  const { client, sent } = scripted([error(429, 'rate_limited', { 'retry-after': '5' }), json(200, [])], {
    sleep: (_ms, signal) =>
      new Promise((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason));
        controller.abort(new Error('user gave up'));
      }),
  });
  await assert.rejects(client.listPets({}, { signal: controller.signal }), { message: 'user gave up' });
  assert.equal(sent.length, 1);
  await assert.rejects(client.getPet(1, { signal: controller.signal }), { message: 'user gave up' });
  await assert.rejects(client.usage({ signal: controller.signal }), { message: 'user gave up' });
  await assert.rejects(client.createPet({ name: 'a', categoryId: 1 }, { signal: controller.signal }), { message: 'user gave up' });
  await assert.rejects(client.allPets({}, { signal: controller.signal })[Symbol.asyncIterator]().next(), { message: 'user gave up' });
  assert.equal(sent.length, 1);
});

test('an abort during fetch is not retried as a network error', async () => {
  const controller = new AbortController();
  const { client, sent } = scripted([
    () => {
      controller.abort(new Error('stop'));
      throw new DOMException('aborted', 'AbortError');
    },
  ]);
  await assert.rejects(client.listPets({}, { signal: controller.signal }), { message: 'stop' });
  assert.equal(sent.length, 1);
});

test('the default sleep really waits and can be aborted', async () => {
  const controller = new AbortController();
  const client = createClient({
    baseUrl: 'http://api.test/v1/',
    apiKey: 'k',
    retry: { maxAttempts: 2 },
    random: () => 0,
    fetch: (async () => error(429, 'rate_limited', { 'retry-after': '60' })) as typeof fetch,
  });
  setTimeout(() => controller.abort(new Error('enough')), 20);
  const started = Date.now();
  await assert.rejects(client.listPets({}, { signal: controller.signal }), { message: 'enough' });
  assert.ok(Date.now() - started < 5000);
});

test('onDeprecation is called once per operation, with what the headers say', async () => {
  const deprecated = {
    deprecation: '@1795305600',
    sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
    link: '</v1/pets?status=available>; rel="successor-version", </docs/deprecations>; rel="deprecation"; type="text/markdown"',
  };
  const notices: unknown[] = [];
  const { client } = scripted([json(200, pet, deprecated), error(404, 'pet_not_found', deprecated), json(200, [])], {
    onDeprecation: (notice) => notices.push(notice),
  });
  await client.getPet(1);
  await assert.rejects(client.getPet(2), { code: 'pet_not_found' });
  await client.listPets();
  assert.deepEqual(notices, [
    {
      operation: 'getPet',
      deprecatedAt: new Date('2026-11-22T00:00:00Z'),
      sunset: new Date('2030-12-05T00:00:00Z'),
      link: 'http://api.test/docs/deprecations',
      successor: 'http://api.test/v1/pets?status=available',
    },
  ]);
});

test('lastRateLimit follows the latest answer, error answers included', async () => {
  const limits = (remaining: number) => ({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': '1795305660' });
  const { client } = scripted([json(200, [], limits(59)), error(404, 'pet_not_found', limits(58)), json(200, [])]);
  assert.equal(client.lastRateLimit, undefined);
  await client.listPets();
  assert.deepEqual(client.lastRateLimit, { limit: 60, remaining: 59, resetAt: 1795305660 });
  await client.getPet(9).catch(() => undefined);
  assert.deepEqual(client.lastRateLimit, { limit: 60, remaining: 58, resetAt: 1795305660 });
  await client.listPets(); // no headers: the last known state stays
  assert.deepEqual(client.lastRateLimit, { limit: 60, remaining: 58, resetAt: 1795305660 });
});

test('allPets follows rel="next" until a page has none, retrying a page like any GET', async () => {
  const { client, sent } = scripted([
    json(200, [pet, { ...pet, id: 2 }], { link: '</v1/pets?limit=2&status=sold&cursor=abc>; rel="next"' }),
    error(503, 'rate_limit_unavailable'),
    json(200, [{ ...pet, id: 3 }], { link: '</docs/deprecations>; rel="deprecation"' }),
  ]);
  const ids: number[] = [];
  for await (const each of client.allPets({ limit: 2, status: 'sold' })) ids.push(each.id);
  assert.deepEqual(ids, [1, 2, 3]);
  assert.deepEqual(
    sent.map((request) => request.url),
    [
      'http://api.test/v1/pets?limit=2&status=sold',
      'http://api.test/v1/pets?limit=2&status=sold&cursor=abc',
      'http://api.test/v1/pets?limit=2&status=sold&cursor=abc',
    ],
  );
});

test('allPets never sends the key to another origin than the API', async () => {
  const { client, sent } = scripted([json(200, [pet], { link: '<https://elsewhere.test/v1/pets?cursor=x>; rel="next"' })]);
  const seen: number[] = [];
  await assert.rejects(
    (async () => {
      for await (const each of client.allPets()) seen.push(each.id);
    })(),
    (error: ApiError) => error.code === 'unexpected_response' && /another origin/.test(error.message),
  );
  assert.equal(sent.length, 1);
  assert.deepEqual(seen, [1], 'the page it had was given');
});

test('usage() asks GET /v1/usage', async () => {
  const usage = { plan: 'pro', windows: { minute: { limit: 300, remaining: 299, resetAt: 1 } }, ban: null, keyExpiresAt: null };
  const { client, sent } = scripted([json(200, usage)]);
  assert.deepEqual(await client.usage(), usage);
  assert.deepEqual([sent[0]?.method, sent[0]?.url], ['GET', 'http://api.test/v1/usage']);
});

test('createClient checks its options', () => {
  assert.throws(() => createClient({ baseUrl: 'not a url', apiKey: 'k' }), /not a URL/);
  assert.throws(() => createClient({ baseUrl: 'ftp://api.test/v1', apiKey: 'k' }), /http/);
  assert.throws(() => createClient({ baseUrl: 'http://api.test/v1', apiKey: '' }), /apiKey/);
  assert.throws(() => createClient({ baseUrl: 'http://api.test/v1', apiKey: 'k', retry: { maxAttempts: 0 } }), /maxAttempts/);
});
