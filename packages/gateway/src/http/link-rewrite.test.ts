import assert from 'node:assert/strict';
import { test } from 'node:test';
import { upstreamPrefix } from '../proxy/index.js';
import { createLinkRewriter, publicReference, rewriteLinkTargets, type LinkRewriteOptions } from './link-rewrite.js';
import { mapPrefix } from './map-prefix.js';
import { downstreamHeaders } from './upstream-headers.js';

const UPSTREAM = 'http://127.0.0.1:8081';
const moved: LinkRewriteOptions = { upstreamOrigin: UPSTREAM, upstreamPrefix: '/v1', publicPrefix: '/api/pets' };

test('mapPrefix: only paths under the prefix, at a segment boundary, and never another host', () => {
  const cases: [path: string, from: string, to: string, mapped: string | undefined][] = [
    ['/v1/pets?x=1', '/v1', '/api/pets', '/api/pets/pets?x=1'],
    ['/v1', '/v1', '/api/pets', '/api/pets'],
    ['/v1?x=1#f', '/v1', '/api/pets', '/api/pets?x=1#f'],
    ['/v10/pets', '/v1', '/api/pets', undefined],
    ['/other', '/v1', '/api/pets', undefined],
    ['/v1/pets', '/v1', '', '/pets'],
    ['/v1', '/v1', '', '/'],
    ['/v1?x=1', '/v1', '', '/?x=1'],
    ['/pets/7', '', '/v1', '/v1/pets/7'],
    ['//evil.example/v1/x', '', '/v1', undefined],
    ['pets/7', '', '/v1', undefined],
    ['', '', '/v1', undefined],
  ];
  for (const [path, from, to, mapped] of cases) assert.equal(mapPrefix(path, from, to), mapped, `${path} ${from} → ${to}`);
});

test("publicReference: the upstream's own references become public paths; every other reference stays", () => {
  const cases: [reference: string, expected: string][] = [
    ['/v1/pets/7', '/api/pets/pets/7'],
    [`${UPSTREAM}/v1/pets/7?x=1`, '/api/pets/pets/7?x=1'],
    ['HTTP://127.0.0.1:8081/v1/pets', '/api/pets/pets'],
    [`${UPSTREAM}/other`, `${UPSTREAM}/other`],
    [UPSTREAM, UPSTREAM],
    ['http://127.0.0.1:8082/v1/pets', 'http://127.0.0.1:8082/v1/pets'],
    ['https://127.0.0.1:8081/v1/pets', 'https://127.0.0.1:8081/v1/pets'],
    ['https://docs.example.com/v1/pets', 'https://docs.example.com/v1/pets'],
    ['//127.0.0.1:8081/v1/pets', '//127.0.0.1:8081/v1/pets'],
    ['pets/7', 'pets/7'],
    ['urn:isbn:0451450523', 'urn:isbn:0451450523'],
    ['http://[bad/v1/pets', 'http://[bad/v1/pets'],
  ];
  for (const [reference, expected] of cases) assert.equal(publicReference(reference, moved), expected, reference);
  const defaultPort = { upstreamOrigin: 'http://pets', upstreamPrefix: '', publicPrefix: '/v1' };
  assert.equal(publicReference('http://PETS:80/pets/7', defaultPort), '/v1/pets/7', 'origins compare as URL normalises them');
});

test('rewriteLinkTargets: every target of a Link with several entries; parameters as they came', () => {
  const up = (reference: string) => publicReference(reference, moved);
  assert.equal(
    rewriteLinkTargets(`</v1/pets?cursor=b>; rel="next", <${UPSTREAM}/v1/pets?cursor=z>; rel="last", <https://docs.example.com/v1/guide>; rel="help"`, up),
    '</api/pets/pets?cursor=b>; rel="next", </api/pets/pets?cursor=z>; rel="last", <https://docs.example.com/v1/guide>; rel="help"',
  );
  assert.equal(
    rewriteLinkTargets('</v1/a>; title="a, </v1/b>", </v1/c>; title="\\" <no>"; rel=next', up),
    '</api/pets/a>; title="a, </v1/b>", </api/pets/c>; title="\\" <no>"; rel=next',
    'what a quoted string holds is no target',
  );
  assert.equal(rewriteLinkTargets('< /v1/a >; rel="next"', up), '</api/pets/a>; rel="next"');
  assert.equal(rewriteLinkTargets('</v1/a; rel="next"', up), '</v1/a; rel="next"', 'unterminated: left as it came');
  assert.equal(rewriteLinkTargets('no link at all', up), 'no link at all');
});

test('createLinkRewriter: Location and Link of any case, nothing else; none at all when the prefixes agree', () => {
  assert.equal(createLinkRewriter({ upstreamOrigin: UPSTREAM, upstreamPrefix: '/v1', publicPrefix: '/v1' }), undefined);
  const rewrite = createLinkRewriter(moved);
  assert.ok(rewrite !== undefined);
  const headers = ['Location', ' /v1/pets/7', 'LINK', '</v1/pets>; rel="next"', 'Content-Location', '/v1/pets/7', 'x-path', '/v1/pets'];
  rewrite(headers);
  assert.deepEqual(headers, ['Location', '/api/pets/pets/7', 'LINK', '</api/pets/pets>; rel="next"', 'Content-Location', '/v1/pets/7', 'x-path', '/v1/pets']);
});

test("downstreamHeaders rewrites the upstream's links, never the gateway's own (public already)", () => {
  const rewrite = createLinkRewriter({ upstreamOrigin: UPSTREAM, upstreamPrefix: '', publicPrefix: '/v1' });
  const raw = ['Location', '/pets/7', 'Link', '</pets?cursor=b>; rel="next"'];
  assert.deepEqual(downstreamHeaders(raw, {}, rewrite), ['Location', '/v1/pets/7', 'Link', '</v1/pets?cursor=b>; rel="next"']);
  const gateway = { link: '</v1/pets?status=available>; rel="successor-version"' };
  assert.deepEqual(downstreamHeaders(raw, gateway, rewrite), ['Location', '/v1/pets/7', 'link', gateway.link]);
  assert.deepEqual(downstreamHeaders(raw, {}), raw, 'without a rewriter the headers are as sent');
});

test('upstreamPrefix: the path of UPSTREAM_URL, then UPSTREAM_BASE_PATH or the public one', () => {
  assert.equal(upstreamPrefix(new URL('http://pets:8081'), undefined, '/v1'), '/v1');
  assert.equal(upstreamPrefix(new URL('http://pets:8081'), '/', '/api/pets'), '');
  assert.equal(upstreamPrefix(new URL('http://pets:8081/svc/'), '/v2', '/api/pets'), '/svc/v2');
  assert.equal(upstreamPrefix(new URL('http://pets:8081/svc'), undefined, ''), '/svc');
});

test('a link the backend made to itself never comes out naming another host: left as it was (issue 29)', () => {
  const root: LinkRewriteOptions = { upstreamOrigin: UPSTREAM, upstreamPrefix: '/v1', publicPrefix: '' };
  const attacks = [
    '/v1//evil.example/x',
    '/v1/\\evil.example/x',
    '/v1/\t/evil.example/x',
    '/v1/\n/evil.example/x',
    '/v1/\r\n\\evil.example',
    '/v1/\t\t\\\\evil.example',
    `${UPSTREAM}/v1//evil.example/x`,
    `${UPSTREAM}/v1/\\evil.example/x`,
    `${UPSTREAM}/v1/\t/evil.example/x`,
  ];
  for (const reference of attacks) assert.equal(publicReference(reference, root), reference, JSON.stringify(reference));
  // The backend at the root, under a public prefix: its own reference to another host stays one.
  const under: LinkRewriteOptions = { upstreamOrigin: UPSTREAM, upstreamPrefix: '', publicPrefix: '/v1' };
  assert.equal(publicReference('/\\evil.example/x', under), '/\\evil.example/x');
  // Paths that only look alike are rewritten as before.
  assert.equal(publicReference('/v1/pets//7', root), '/pets//7');
  assert.equal(publicReference('/v1/p\\x', root), '/p\\x');
  assert.equal(publicReference('/v1?x=//evil.example', root), '/?x=//evil.example');
  const rewrite = createLinkRewriter(root);
  assert.ok(rewrite !== undefined);
  const headers = ['Location', '/v1//evil.example/x', 'Link', '</v1/\\evil.example/x>; rel="next", </v1/pets>; rel="self"'];
  rewrite(headers);
  assert.deepEqual(headers, ['Location', '/v1//evil.example/x', 'Link', '</v1/\\evil.example/x>; rel="next", </pets>; rel="self"']);
});
