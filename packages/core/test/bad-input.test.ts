import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { endlessUpload, redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { assertError, startCore, type RunningCore, type StoreKind } from './helpers.js';

interface BadRequest {
  readonly name: string;
  readonly method?: string;
  readonly path?: string;
  /** A string is sent as is; anything else as JSON. */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly status: number;
  readonly code: string;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const OK_PET = { name: 'Rex', categoryId: 1 };
const post = (name: string, body: unknown, status: number, code: string, headers: Record<string, string> = JSON_TYPE): BadRequest => ({
  name,
  method: 'POST',
  path: '/v1/pets',
  body,
  headers,
  status,
  code,
});
const list = (query: string, code = 'invalid_query'): BadRequest => ({ name: `GET /v1/pets?${query}`, path: `/v1/pets?${query}`, status: 400, code });

const CASES: readonly BadRequest[] = [
  // listPets queries
  list('limit=0'),
  list('limit=101'),
  list('limit=abc'),
  list('limit=1.5'),
  list('limit=-1'),
  list('limit='),
  list('limit=1e2'),
  list('limit=%20'),
  list('limit=5&limit=6'),
  list('status=lost'),
  list('status=Available'),
  list('status='),
  list('status=sold&status=pending'),
  list('sort=name'),
  list('cursor=not-a-cursor', 'invalid_cursor'),
  list('cursor=', 'invalid_cursor'),
  // createPet bodies
  post('invalid JSON', '{"name": "Rex",', 400, 'invalid_json'),
  post('empty body', '', 400, 'invalid_json'),
  post('JSON null', 'null', 400, 'invalid_body'),
  post('JSON array', '[]', 400, 'invalid_body'),
  post('JSON string', '"Rex"', 400, 'invalid_body'),
  post('missing name', { categoryId: 1 }, 400, 'invalid_body'),
  post('missing categoryId', { name: 'Rex' }, 400, 'invalid_body'),
  post('name not a string', { name: 42, categoryId: 1 }, 400, 'invalid_body'),
  post('empty name', { name: '', categoryId: 1 }, 400, 'invalid_body'),
  post('blank name', { name: '   ', categoryId: 1 }, 400, 'invalid_body'),
  post('absurdly long name', { name: 'x'.repeat(101), categoryId: 1 }, 400, 'invalid_body'),
  post('categoryId as string', { name: 'Rex', categoryId: '1' }, 400, 'invalid_body'),
  post('categoryId fractional', { name: 'Rex', categoryId: 1.5 }, 400, 'invalid_body'),
  post('categoryId zero', { name: 'Rex', categoryId: 0 }, 400, 'invalid_body'),
  post('categoryId not JSON-safe (2^53+1)', '{"name":"Rex","categoryId":9007199254740993}', 400, 'invalid_body'),
  post('categoryId beyond int64', '{"name":"Rex","categoryId":99999999999999999999}', 400, 'invalid_body'),
  post('unknown status', { ...OK_PET, status: 'lost' }, 400, 'invalid_body'),
  post('unknown field', { ...OK_PET, colour: 'brown' }, 400, 'invalid_body'),
  post('client-chosen id', { ...OK_PET, id: 5 }, 400, 'invalid_body'),
  post('__proto__ field', '{"name":"Rex","categoryId":1,"__proto__":{"x":1}}', 400, 'invalid_body'),
  post('invalid UTF-8', Buffer.from([0x7b, 0x22, 0x6e, 0xff, 0x22, 0x7d]), 400, 'invalid_json'),
  post('text/plain body', JSON.stringify(OK_PET), 415, 'unsupported_media_type', { 'content-type': 'text/plain' }),
  post('no content type', JSON.stringify(OK_PET), 415, 'unsupported_media_type', {}),
  post('form content type', 'name=Rex', 415, 'unsupported_media_type', { 'content-type': 'application/x-www-form-urlencoded' }),
  post('latin-1 charset', JSON.stringify(OK_PET), 415, 'unsupported_media_type', { 'content-type': 'application/json; charset=latin1' }),
  post('body over 64 KiB', { name: 'Rex', categoryId: 1, pad: 'x'.repeat(70_000) }, 413, 'payload_too_large'),
  post('blank Idempotency-Key', OK_PET, 400, 'invalid_idempotency_key', { ...JSON_TYPE, 'idempotency-key': ' ' }),
  post('Idempotency-Key too long', OK_PET, 400, 'invalid_idempotency_key', { ...JSON_TYPE, 'idempotency-key': 'k'.repeat(256) }),
  // ids and paths
  { name: 'pet id not a number', path: '/v1/pets/rex', status: 400, code: 'invalid_pet_id' },
  { name: 'pet id beyond int64', path: '/v1/pets/9223372036854775808', status: 400, code: 'invalid_pet_id' },
  { name: 'pet id with a sign', path: '/v1/pets/+1', status: 400, code: 'invalid_pet_id' },
  { name: 'nested path', path: '/v1/pets/1/owner', status: 404, code: 'not_found' },
  { name: 'double slash', path: '//v1/pets', status: 404, code: 'not_found' },
  { name: 'dot segment', path: '/v1/pets/../pets', status: 404, code: 'not_found' },
  { name: 'wrong case', path: '/V1/PETS', status: 404, code: 'not_found' },
  { name: 'PATCH a pet', method: 'PATCH', path: '/v1/pets/1', status: 405, code: 'method_not_allowed' },
];

/** Sends one case with node:http, so bodies and headers go out exactly as written. */
function send(base: string, c: BadRequest): Promise<Response> {
  const payload = c.body === undefined ? undefined : typeof c.body === 'string' || Buffer.isBuffer(c.body) ? c.body : JSON.stringify(c.body);
  return new Promise((resolve, reject) => {
    // Host and port apart from the path: a URL string would resolve `..` before sending.
    const { hostname, port } = new URL(base);
    const options = { hostname, port, path: c.path ?? '/v1/pets', method: c.method ?? 'GET', headers: c.headers };
    const req = request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
        resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers }));
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const redisSkip = redisSkipReason();

for (const kind of ['memory', 'redis'] as const satisfies StoreKind[]) {
  describe(`malformed requests, ${kind} store`, { skip: kind === 'redis' ? redisSkip : false }, () => {
    let redis: RedisServer | undefined;
    let core: RunningCore;
    before(async () => {
      if (kind === 'redis') redis = await startRedis();
      core = await startCore(kind, { redisUrl: redis?.url });
    });
    after(async () => {
      await core?.close();
      await redis?.close();
    });

    test(`the table has at least 30 cases (${CASES.length})`, () => assert.ok(CASES.length >= 30));

    for (const c of CASES) {
      test(`${c.name} → ${c.status} ${c.code}`, async () => {
        await assertError(await send(core.url, c), c.status, c.code);
      });
    }

    test('nothing malformed created a pet', async () => {
      assert.deepEqual(await (await fetch(`${core.url}/v1/pets`)).json(), []);
    });

    test('a chunked body growing past the limit is refused with 413 and the connection closed', async () => {
      const res = await new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
        const req = request(`${core.url}/v1/pets`, { method: 'POST', headers: JSON_TYPE }, (r) => {
          let body = '';
          r.on('data', (chunk: Buffer) => (body += chunk.toString()));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body, connection: r.headers.connection }));
        });
        req.on('error', reject);
        req.write(`{"name":"${'x'.repeat(40_000)}`);
        req.write('y'.repeat(40_000));
        req.end('"}');
      });
      assert.equal(res.status, 413);
      assert.equal(JSON.parse(res.body).code, 'payload_too_large');
      assert.equal(res.connection, 'close');
    });

    test('a request that is not HTTP gets a 400 Error body, and the server keeps serving', async () => {
      const { port } = new URL(core.url);
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.write('HELLO /v1/pets NOT-HTTP\r\n\r\n'));
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString()));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
      assert.match(reply, /^HTTP\/1\.1 400 Bad Request\r\n/);
      assert.match(reply, /"code":"bad_request"/);
      assert.equal((await fetch(`${core.url}/healthz`)).status, 200);
    });

    test('headers over the size limit get 431 with an Error body', async () => {
      const res = await send(core.url, {
        name: 'huge header',
        path: '/v1/pets',
        headers: { 'x-filler': 'x'.repeat(20_000) },
        status: 431,
        code: 'headers_too_large',
      });
      await assertError(res, 431, 'headers_too_large');
    });
  });
}

test('an early answer closes the connection instead of draining a 256 MiB body', async () => {
  const core = await startCore('memory');
  try {
    const port = Number(new URL(core.url).port);
    for (const [head, status] of [
      ['POST /v1/nowhere HTTP/1.1\r\nHost: core\r\nContent-Length: 268435456\r\n\r\n', 404],
      ['POST /v1/pets HTTP/1.1\r\nHost: core\r\nContent-Type: text/plain\r\nContent-Length: 268435456\r\n\r\n', 415],
      ['POST /v1/pets HTTP/1.1\r\nHost: core\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n40000\r\n', 413],
    ] as const) {
      const { reply, sent, closedAfterMs } = await endlessUpload(port, head);
      assert.match(reply, new RegExp(`^HTTP/1\\.1 ${status} `));
      assert.match(reply, /\r\nconnection: close\r\n/i);
      assert.ok(closedAfterMs !== undefined && closedAfterMs < 4000, `closed after ${closedAfterMs} ms`);
      assert.ok(sent < 48 * 1024 * 1024, `the client could send ${(sent / 1048576).toFixed(0)} MiB`);
    }
  } finally {
    await core.close();
  }
});
