import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from './load-config.js';

test('defaults: 8080 on loopback in front of the core on 8081', () => {
  const result = loadConfig({});
  assert.ok(result.ok);
  const { config } = result;
  assert.equal(config.port, 8080);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.upstream.url.href, 'http://127.0.0.1:8081/');
  assert.equal(config.bodyLimitBytes, 65_536);
  assert.equal(config.enforceSunset, true);
  assert.match(config.openApiFile, /packages\/core\/openapi\.json$/);
  assert.equal(config.trustProxy.check('127.0.0.1', 'ipv4'), false, 'no proxy is trusted by default');
  assert.ok(Object.isFrozen(config) && Object.isFrozen(config.upstream));
});

test('TRUST_PROXY takes addresses and CIDRs of both families', () => {
  const result = loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7, fd00::/8' });
  assert.ok(result.ok);
  const trust = result.config.trustProxy;
  assert.equal(trust.check('10.1.2.3', 'ipv4'), true);
  assert.equal(trust.check('192.168.1.7', 'ipv4'), true);
  assert.equal(trust.check('192.168.1.8', 'ipv4'), false);
  assert.equal(trust.check('fd12::1', 'ipv6'), true);
});

test('every invalid variable is reported at once', () => {
  const result = loadConfig({
    PORT: '-1',
    UPSTREAM_URL: 'ftp://x',
    TRUST_PROXY: '10.0.0.0/33, nonsense',
    ENFORCE_SUNSET: 'maybe',
    UPSTREAM_TIMEOUT_MS: '0',
    LOG_LEVEL: 'chatty',
  });
  assert.ok(!result.ok);
  const names = result.problems.map((problem) => problem.split(':')[0]);
  assert.deepEqual([...new Set(names)].sort(), ['ENFORCE_SUNSET', 'LOG_LEVEL', 'PORT', 'TRUST_PROXY', 'UPSTREAM_TIMEOUT_MS', 'UPSTREAM_URL']);
  assert.equal(names.filter((name) => name === 'TRUST_PROXY').length, 2, 'each bad CIDR is named');
});
