import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from './config.js';

test('defaults: port 8081 on loopback, memory store, 64 KiB bodies', () => {
  const result = loadConfig({});
  assert.ok(result.ok);
  assert.equal(result.config.port, 8081);
  assert.equal(result.config.host, '127.0.0.1');
  assert.deepEqual(result.config.store, { kind: 'memory' });
  assert.equal(result.config.bodyLimitBytes, 65_536);
  assert.ok(Object.isFrozen(result.config) && Object.isFrozen(result.config.store));
});

test('the redis store needs PETS_REDIS_URL, and takes a prefix', () => {
  const missing = loadConfig({ PETS_STORE: 'redis' });
  assert.ok(!missing.ok);
  assert.deepEqual(missing.problems, ['PETS_REDIS_URL: is required when PETS_STORE=redis']);

  const ok = loadConfig({ PETS_STORE: 'redis', PETS_REDIS_URL: 'redis://127.0.0.1:6380/2', PETS_REDIS_PREFIX: 'prod' });
  assert.ok(ok.ok);
  assert.deepEqual(ok.config.store, { kind: 'redis', url: 'redis://127.0.0.1:6380/2', prefix: 'prod' });
});

test('every invalid variable is reported at once', () => {
  const result = loadConfig({ PORT: '70000', PETS_STORE: 'sql', PETS_REDIS_URL: 'http://x', BODY_LIMIT_BYTES: '0', PETS_REDIS_PREFIX: 'a b' });
  assert.ok(!result.ok);
  const names = result.problems.map((problem) => problem.split(':')[0]);
  assert.deepEqual(names.sort(), ['BODY_LIMIT_BYTES', 'PETS_REDIS_PREFIX', 'PETS_REDIS_URL', 'PETS_STORE', 'PORT']);
});

test('an empty variable counts as unset', () => {
  const result = loadConfig({ PORT: '', PETS_STORE: '' });
  assert.ok(result.ok);
  assert.equal(result.config.port, 8081);
});
