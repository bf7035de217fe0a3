import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SPREADS } from '../lib/accounts.js';
import type { KeyRotation } from '../lib/key-files.js';
import type { BenchContext } from '../lib/scenario.js';
import type { Service } from '../lib/services.js';
import { throughput, throughputTarget, type ThroughputScenario } from './throughput.js';

const service = (url: string) => ({ name: url, url, pid: 1, stop: async () => {} }) as Service;
const rotation = (name: string) =>
  ({ keysFile: `${name}.keys`, orderFile: `${name}.order`, scriptFile: 'rotate-keys.lua', next: () => `Bearer ${name}` }) as KeyRotation;
const context = {
  limitsRedis: service('http://gateway'),
  haproxyJwt: service('http://haproxy'),
  oneKey: 'one',
  haproxyKey: 'one-es256',
  spreads: { uniform: { spread: SPREADS.uniform, gateway: rotation('uniform-gateway'), haproxy: rotation('uniform-haproxy') } },
} as unknown as BenchContext;
const gateway: ThroughputScenario = { name: 'gateway-limits-redis', description: 'd', service: (c) => c.limitsRedis, key: 'gateway', needsRedis: true };
const haproxy: ThroughputScenario = { name: 'haproxy-jwt-stick-table', description: 'd', service: (c) => c.haproxyJwt, key: 'haproxy' };

test("one account sends its key as a header; many accounts a rotation, HAProxy's signed for it", () => {
  assert.deepEqual(throughputTarget(gateway, SPREADS.one, context), { url: 'http://gateway/v1/pets', headers: { authorization: 'Bearer one' } });
  assert.deepEqual(throughputTarget(haproxy, SPREADS.one, context).headers, { authorization: 'Bearer one-es256' });
  assert.equal(throughputTarget(gateway, SPREADS.uniform, context).keys?.keysFile, 'uniform-gateway.keys');
  assert.equal(throughputTarget(haproxy, SPREADS.uniform, context).keys?.keysFile, 'uniform-haproxy.keys');
  assert.equal(throughputTarget({ ...gateway, key: 'none' }, SPREADS.one, context).headers, undefined);
  assert.equal(throughputTarget({ ...gateway, key: 'none' }, SPREADS.uniform, context).keys?.keysFile, 'uniform-gateway.keys');
  assert.throws(() => throughputTarget(gateway, SPREADS.zipf, context), /no keys of the spread zipf/);
});

test("a scenario with a spread carries the spread's suffix and label, and keeps what it needs", () => {
  const scenario = throughput(gateway, SPREADS.uniform);
  assert.equal(scenario.name, 'gateway-limits-redis@2000-uniform');
  assert.match(scenario.description, /; 2,000 accounts, uniform/);
  assert.equal(scenario.needsRedis, true);
  assert.equal(scenario.proxy?.(context)?.url, 'http://gateway');
  assert.equal(throughput(gateway).name, 'gateway-limits-redis');
});
