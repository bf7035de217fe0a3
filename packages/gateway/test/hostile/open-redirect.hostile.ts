import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { PROXY_ENGINES } from '../../src/proxy/index.js';
import { writeDocument } from '../support/index.js';
import { startProcess, type ServiceUnderTest } from './processes.js';

// Hostile suite, issue 29 point 2: with PUBLIC_BASE_PATH=/ and UPSTREAM_BASE_PATH=/v1 the gateway
// rewrote a backend's `Location: /v1//evil.example/x` to `//evil.example/x`, which a browser
// follows to evil.example. A gateway process per engine, in front of a backend that answers each
// request with the reference it is given, in `Location` and in `Link`, as a path and as an
// absolute URL on its own origin: wherever a browser resolves what the client gets, it is the
// gateway's host or the backend's, never another.

const EVIL = 'evil.example';
const TAILS = [
  `//${EVIL}/x`,
  `/\\${EVIL}/x`,
  `/\t/${EVIL}/x`,
  `/\t\t/${EVIL}`,
  `///${EVIL}`,
  `/\\/${EVIL}`,
  `//\\${EVIL}`,
  `/\\\\${EVIL}`,
  `/\t\\${EVIL}`,
  `//${EVIL}:443/x?y=1#z`,
  `//user@${EVIL}/`,
  `/%2F/${EVIL}`,
  `/%5C${EVIL}`,
  `/ /${EVIL}`,
  `?//${EVIL}`,
  `#//${EVIL}`,
];
const GATEWAY_HOST = 'gateway.example';

describe('hostile: a backend whose links, rewritten, would name another host', () => {
  let backend: Server;
  let backendUrl: string;

  before(async () => {
    backend = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://backend');
      const reference = `/v1${url.searchParams.get('tail') ?? ''}`;
      const target = url.searchParams.has('absolute') ? `http://${req.headers.host}${reference}` : reference;
      res.writeHead(302, { location: target, link: `</v1/pets>; rel="self", <${target}>; rel="next"`, 'content-length': '0' });
      res.end();
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
  });
  after(async () => {
    backend?.closeAllConnections();
    await new Promise((resolve) => backend?.close(resolve));
  });

  for (const engine of PROXY_ENGINES) {
    describe(`PROXY_ENGINE=${engine}`, () => {
      let gateway: ServiceUnderTest;
      before(async () => {
        gateway = await startProcess('gateway', {
          UPSTREAM_URL: backendUrl,
          OPENAPI_FILE: writeDocument({ '/redirect': { get: { operationId: 'redirect' } }, '/pets': { get: { operationId: 'listPets' } } }),
          PUBLIC_BASE_PATH: '/',
          UPSTREAM_BASE_PATH: '/v1',
          AUTH: 'off',
          RATE_LIMITS: 'off',
          PROXY_ENGINE: engine,
        });
      });
      after(async () => {
        await gateway?.stop();
      });

      test(`${TAILS.length * 2} references in Location and Link: each resolves on the gateway's host or the backend's`, async () => {
        const allowed = new Set([GATEWAY_HOST, new URL(backendUrl).host]);
        let rewritten = 0;
        for (const tail of TAILS) {
          for (const absolute of [false, true]) {
            const res = await fetch(`${gateway.url}/redirect?tail=${encodeURIComponent(tail)}${absolute ? '&absolute' : ''}`, { redirect: 'manual' });
            assert.equal(res.status, 302);
            const location = res.headers.get('location') ?? '';
            const targets = [...(res.headers.get('link') ?? '').matchAll(/<([^>]*)>/g)].map((match) => match[1] as string);
            assert.equal(targets[0], '/pets', "the backend's own path is still rewritten");
            for (const reference of [location, targets[1] as string]) {
              const host = new URL(reference, `https://${GATEWAY_HOST}/`).host;
              assert.ok(allowed.has(host), `${JSON.stringify(tail)} (absolute: ${absolute}) reached the client as ${JSON.stringify(reference)}: host ${host}`);
            }
            if (!location.startsWith('/v1') && !location.startsWith('http')) rewritten++;
          }
        }
        console.log(`# ${engine}: ${rewritten} of ${TAILS.length * 2} references rewritten to public paths, the rest left as the backend sent them`);
      });
    });
  }
});
