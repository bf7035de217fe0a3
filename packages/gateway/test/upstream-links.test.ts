import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startService } from '@animal-store/testkit';
import { startGateway, startRecordingUpstream, writeDocument, type RecordingUpstream } from './support/index.js';

// Issue 22: an API moved to another public path must not send clients back to the old one,
// neither in the links the gateway makes nor in those the backend sends (nginx's proxy_redirect).

const PATHS = {
  '/made': { post: { operationId: 'make' } },
  '/pets': { get: { operationId: 'listPets' } },
  '/pets/{petId}': { get: { operationId: 'getPet' } },
};

/** Answers `…/made` as a backend under whatever prefix it was asked at: a new pet and a page of links. */
function made(req: IncomingMessage, res: ServerResponse): void {
  const prefix = (req.url ?? '').slice(0, (req.url ?? '').indexOf('/made'));
  res.writeHead(201, {
    location: `${prefix}/pets/7`,
    link: [
      `<${prefix}/pets?cursor=b>; rel="next"; title="page, <2>"`,
      `<http://${req.headers.host}${prefix}/pets?cursor=z>; rel="last"`,
      `<https://docs.example.com${prefix}/guide>; rel="help"`,
    ].join(', '),
    'content-type': 'application/json',
  });
  res.end('{}');
}

const HELP = '<https://docs.example.com/v1/guide>; rel="help"';

describe("the backend's Location and Link name public paths", () => {
  let upstream: RecordingUpstream;
  before(async () => {
    upstream = await startRecordingUpstream({ '/v1/made': made, '/made': made, '/svc/v1/made': made });
  });
  after(() => upstream.close());

  for (const engine of ['undici', 'http-proxy']) {
    test(`PROXY_ENGINE=${engine}: /api/pets in front of a backend at /v1; every link leads somewhere, foreign ones stay`, async () => {
      const gateway = await startGateway({
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: writeDocument(PATHS),
        PUBLIC_BASE_PATH: '/api/pets',
        UPSTREAM_BASE_PATH: '/v1',
        PROXY_ENGINE: engine,
      });
      try {
        const res = await fetch(`${gateway.url}/api/pets/made`, { method: 'POST' });
        assert.equal(res.status, 201);
        assert.equal(upstream.requests.at(-1)?.url, '/v1/made');
        assert.equal(res.headers.get('location'), '/api/pets/pets/7');
        assert.equal(res.headers.get('link'), `</api/pets/pets?cursor=b>; rel="next"; title="page, <2>", </api/pets/pets?cursor=z>; rel="last", ${HELP}`);
        for (const link of ['/api/pets/pets/7', '/api/pets/pets?cursor=b', '/api/pets/pets?cursor=z']) {
          assert.equal((await fetch(`${gateway.url}${link}`)).status, 200, link);
          assert.equal(upstream.requests.at(-1)?.url, link.replace('/api/pets', '/v1'));
        }
      } finally {
        await gateway.close();
      }
    });
  }

  const CASES: [settings: Record<string, string>, location: string, next: string][] = [
    [{ UPSTREAM_BASE_PATH: '/' }, '/v1/pets/7', '</v1/pets?cursor=b>'],
    [{ PUBLIC_BASE_PATH: '/', UPSTREAM_BASE_PATH: '/v1' }, '/pets/7', '</pets?cursor=b>'],
    [{ UPSTREAM_URL_PATH: '/svc' }, '/v1/pets/7', '</v1/pets?cursor=b>'],
  ];
  for (const [{ UPSTREAM_URL_PATH = '', ...settings }, location, next] of CASES) {
    test(`${JSON.stringify(settings)}${UPSTREAM_URL_PATH === '' ? '' : `, UPSTREAM_URL …${UPSTREAM_URL_PATH}`}: Location ${location}`, async () => {
      const gateway = await startGateway({ UPSTREAM_URL: `${upstream.url}${UPSTREAM_URL_PATH}`, OPENAPI_FILE: writeDocument(PATHS), ...settings });
      try {
        const res = await fetch(`${gateway.url}${location.replace('/pets/7', '/made')}`, { method: 'POST' });
        assert.equal(res.status, 201);
        assert.equal(res.headers.get('location'), location);
        assert.match(res.headers.get('link') ?? '', new RegExp(`^${next.replace(/[?]/g, '\\?')}; rel="next"`));
      } finally {
        await gateway.close();
      }
    });
  }

  test('UPSTREAM_REWRITE_LINKS=off: Location and Link as the backend sent them', async () => {
    const gateway = await startGateway({
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PATHS),
      PUBLIC_BASE_PATH: '/api/pets',
      UPSTREAM_BASE_PATH: '/v1',
      UPSTREAM_REWRITE_LINKS: 'off',
    });
    try {
      const res = await fetch(`${gateway.url}/api/pets/made`, { method: 'POST' });
      assert.equal(res.headers.get('location'), '/v1/pets/7');
      assert.match(res.headers.get('link') ?? '', /^<\/v1\/pets\?cursor=b>; rel="next"; title="page, <2>", <http:\/\/127\.0\.0\.1:\d+\/v1\/pets\?cursor=z>/);
    } finally {
      await gateway.close();
    }
  });

  test('the same base path on both sides (the default): nothing to rewrite, the headers pass as sent', async () => {
    const gateway = await startGateway({ UPSTREAM_URL: upstream.url, OPENAPI_FILE: writeDocument(PATHS) });
    try {
      const res = await fetch(`${gateway.url}/v1/made`, { method: 'POST' });
      assert.equal(res.headers.get('location'), '/v1/pets/7');
      assert.match(res.headers.get('link') ?? '', /, <http:\/\/127\.0\.0\.1:\d+\/v1\/pets\?cursor=z>; rel="last"/);
    } finally {
      await gateway.close();
    }
  });
});

// Issue 29, point 2: with PUBLIC_BASE_PATH=/ a backend's `/v1//evil.example/x` came out as
// `//evil.example/x`, which a browser follows to evil.example (an open redirect).
const TO_ANOTHER_HOST = ['/v1//evil.example/x', '/v1/\\evil.example/x', '/v1/\t/evil.example/x'];

describe('PUBLIC_BASE_PATH=/ UPSTREAM_BASE_PATH=/v1: no rewritten link names another host', () => {
  let upstream: RecordingUpstream;
  before(async () => {
    upstream = await startRecordingUpstream({
      '/v1/redirect': (req, res) => {
        const index = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('i'));
        const reference = TO_ANOTHER_HOST[index] as string;
        const absolute = new URL(req.url ?? '/', 'http://x').searchParams.has('absolute');
        const target = absolute ? `http://${req.headers.host}${reference}` : reference;
        res.writeHead(302, { location: target, link: `<${target}>; rel="next", </v1/pets>; rel="self"`, 'content-length': '0' });
        res.end();
      },
    });
  });
  after(() => upstream.close());

  for (const engine of ['undici', 'http-proxy']) {
    test(`PROXY_ENGINE=${engine}: Location and Link, paths and absolute URLs on the backend's origin`, async () => {
      const gateway = await startGateway({
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: writeDocument({ ...PATHS, '/redirect': { get: { operationId: 'redirect' } } }),
        PUBLIC_BASE_PATH: '/',
        UPSTREAM_BASE_PATH: '/v1',
        PROXY_ENGINE: engine,
      });
      try {
        for (const [index, reference] of TO_ANOTHER_HOST.entries()) {
          for (const absolute of [false, true]) {
            const res = await fetch(`${gateway.url}/redirect?i=${index}${absolute ? '&absolute' : ''}`, { redirect: 'manual' });
            assert.equal(res.status, 302);
            const location = res.headers.get('location') ?? '';
            const link = res.headers.get('link') ?? '';
            const expected = absolute ? `${upstream.url}${reference}` : reference;
            // Left as the backend sent it: on the gateway's host (or the backend's), never another.
            assert.equal(location, expected, `${JSON.stringify(reference)} absolute=${absolute}`);
            assert.equal(new URL(location, 'https://gateway.example/').host, absolute ? new URL(upstream.url).host : 'gateway.example');
            assert.equal(link, `<${expected}>; rel="next", </pets>; rel="self"`);
          }
        }
      } finally {
        await gateway.close();
      }
    });
  }
});

describe("the gateway's own links under PUBLIC_BASE_PATH", () => {
  let upstream: RecordingUpstream;
  before(async () => {
    upstream = await startRecordingUpstream();
  });
  after(() => upstream.close());

  // The interface's own document: getPet is deprecated, its successor `/v1/pets?status=available`.
  test('Link rel="successor-version" names the public path, and it is served', async () => {
    const gateway = await startGateway({ UPSTREAM_URL: upstream.url, PUBLIC_BASE_PATH: '/api/pets', UPSTREAM_BASE_PATH: '/v1' });
    try {
      const res = await fetch(`${gateway.url}/api/pets/pets/1`);
      assert.equal(res.status, 200);
      const successor = /<([^>]+)>; rel="successor-version"/.exec(res.headers.get('link') ?? '')?.[1];
      assert.equal(successor, '/api/pets/pets?status=available');
      assert.equal((await fetch(`${gateway.url}${successor}`)).status, 200);
      assert.equal(upstream.requests.at(-1)?.url, '/v1/pets?status=available');
    } finally {
      await gateway.close();
    }
  });

  test('the served document: servers and x-successor-version under the public path', async () => {
    const gateway = await startGateway({ UPSTREAM_URL: upstream.url, PUBLIC_BASE_PATH: '/api/pets' });
    try {
      const document = (await (await fetch(`${gateway.url}/api/pets/openapi.json`)).json()) as {
        servers: { url: string }[];
        paths: Record<string, { get?: Record<string, unknown> }>;
      };
      assert.deepEqual(
        document.servers.map((server) => server.url),
        ['https://{host}/api/pets', 'https://{host}/api/pets'],
      );
      assert.equal(document.paths['/pets/{petId}']?.get?.['x-successor-version'], '/api/pets/pets?status=available');
    } finally {
      await gateway.close();
    }
  });

  test('/docs/deprecations: "Use instead" names the public path', async () => {
    const gateway = await startGateway({ UPSTREAM_URL: upstream.url, PUBLIC_BASE_PATH: '/api/pets' });
    try {
      const notes = await (await fetch(`${gateway.url}/docs/deprecations`)).text();
      assert.match(notes, /## GET \/api\/pets\/pets\/\{petId\}/);
      assert.match(notes, /- Use instead: `GET \/api\/pets\/pets\?status=available`/);
      // The operation's own description is the backend's prose, which the gateway does not rewrite
      // (it names the default base path as such); every line the gateway writes names the public one.
      const written = notes.split('\n').filter((line) => line.startsWith('#') || line.startsWith('- '));
      assert.doesNotMatch(written.join('\n'), /\/v1\//);
    } finally {
      await gateway.close();
    }
  });
});

test('the start line names the public and the upstream base paths in effect', async () => {
  const upstream = await startRecordingUpstream();
  const gateway = await startService({
    service: 'gateway',
    env: { PORT: '0', AUTH: 'off', UPSTREAM_URL: `${upstream.url}/svc`, OPENAPI_FILE: writeDocument(PATHS), PUBLIC_BASE_PATH: '/api/pets' },
  });
  try {
    const line =
      gateway
        .output()
        .split('\n')
        .find((text) => text.includes('"msg":"gateway listening"')) ?? '';
    assert.match(line, /"publicBasePath":"\/api\/pets"/);
    assert.match(line, /"upstreamBasePath":"\/svc\/api\/pets"/, 'the path of UPSTREAM_URL, then the public base path (no UPSTREAM_BASE_PATH)');
  } finally {
    await gateway.stop();
    await upstream.close();
  }
});
