import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withPublicBasePath } from './public-base-path.js';

const getPet = { get: { deprecated: true, 'x-successor-version': '/v1/pets?status=available' } };
const document = {
  openapi: '3.1.0',
  servers: [{ url: 'https://{host}/v1', variables: { host: { default: 'api.example' } } }, { url: '/v1' }],
  paths: { '/pets/{petId}': getPet, '/old': { get: { 'x-successor-version': '/elsewhere/new' } } },
};

test('servers and successors move to the public base path; a successor elsewhere stays', () => {
  const moved = withPublicBasePath(document, '/api/pets') as typeof document;
  assert.deepEqual(
    moved.servers.map((server) => server.url),
    ['https://{host}/api/pets', '/api/pets'],
  );
  assert.deepEqual(moved.servers[0]?.variables, document.servers[0]?.variables);
  assert.equal(moved.paths['/pets/{petId}'].get['x-successor-version'], '/api/pets/pets?status=available');
  assert.equal(moved.paths['/old'].get['x-successor-version'], '/elsewhere/new');
  assert.equal(document.paths['/pets/{petId}'].get['x-successor-version'], '/v1/pets?status=available', 'the input is not changed');
});

test('to the root; and a document without servers gets the one it now has', () => {
  const root = withPublicBasePath(document, '') as typeof document;
  assert.deepEqual(
    root.servers.map((server) => server.url),
    ['https://{host}', '/'],
  );
  assert.equal(root.paths['/pets/{petId}'].get['x-successor-version'], '/pets?status=available');
  const bare = withPublicBasePath({ openapi: '3.1.0', paths: { '/pets/{petId}': { get: { 'x-successor-version': '/pets' } } } }, '/api');
  assert.deepEqual(bare.servers, [{ url: '/api' }]);
  assert.equal((bare.paths as typeof document.paths)['/pets/{petId}'].get['x-successor-version'], '/api/pets');
});

test('the same base path: the document as it is', () => {
  assert.equal(withPublicBasePath(document, '/v1'), document);
});
