import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capacityFigures, capacityReport, redisCoresFor, type CapacityRound } from './redis-capacity-report.js';

/** A round of 30,000 requests in 3 s: Redis `redisUs` and the gateway `gatewayUs` CPU µs a request, over `calls` script calls. */
const round = (redisUs: number, gatewayUs: number, calls: number, nodes: readonly number[] = [1]): CapacityRound => {
  const requests = 30_000;
  const cpuUsec = redisUs * requests;
  const total = nodes.reduce((sum, share) => sum + share, 0);
  return {
    requests,
    rps: 10_000,
    redis: { scriptCalls: calls, scriptUsec: cpuUsec / 2, cpuUsec },
    nodeCpuUsec: nodes.map((share) => (cpuUsec * share) / total),
    gatewayCpuMs: (gatewayUs * requests) / 1000,
    failed: 0,
  };
};

test('a case reads the medians of its rounds: one Redis core serves 1,000,000 ÷ its CPU µs a request', () => {
  const figures = capacityFigures([round(28, 140, 2300), round(25, 125, 2000), round(40, 150, 3000)]);
  assert.equal(figures.redisCpuUsPerRequest, 28);
  assert.equal(figures.gatewayCpuUsPerRequest, 140);
  assert.equal(figures.requestsPerRedisCore.toFixed(0), '35714');
  assert.equal(figures.redisCoresPerGatewayCore.toFixed(3), '0.200');
  assert.equal(figures.requestsPerCall?.toFixed(1), '13.0');
  assert.equal(figures.scriptUsPerRequest, 14);
  assert.equal(figures.busiestNodeShare, 1);
});

test("a Cluster's busiest master's share of Redis CPU: even over many accounts, all on one with one account", () => {
  assert.equal(capacityFigures([round(30, 150, 1000, [1, 1, 1])]).busiestNodeShare.toFixed(2), '0.33');
  assert.equal(capacityFigures([round(6, 150, 100, [0, 1, 0])]).busiestNodeShare, 1);
});

test('the sizing rule: N gateway cores × Redis cores per gateway core ÷ 0.7, rounded up', () => {
  assert.equal(redisCoresFor(16, { redisCoresPerGatewayCore: 0.2 }), 5);
  assert.equal(redisCoresFor(16, { redisCoresPerGatewayCore: 0.04 }), 1);
  assert.equal(redisCoresFor(64, { redisCoresPerGatewayCore: 0.2 }, 1), 13);
});

test('a case with no answered round is an error; the report has a row per case and the sizing table', () => {
  assert.throws(() => capacityFigures([{ ...round(1, 1, 1), requests: 0 }]), /no round answered/);
  const text = capacityReport(
    [
      { redis: 'standalone', nodes: 1, spread: '2,000 uniform', rounds: [round(28, 140, 2300)] },
      { redis: 'cluster', nodes: 3, spread: '2,000 uniform', rounds: [round(30, 150, 2300, [1, 1, 1])] },
    ],
    ['# bench:redis'],
  );
  assert.match(text, /\| standalone \| 2,000 uniform \| 10,000 \| 13\.0 \| 28\.0 \| 14\.0 \| 140\.0 \| \*\*35,714\*\* \| 0\.200 \| 1\.00 \| 0 \|/);
  assert.match(text, /\| cluster \(3 masters\) \| 2,000 uniform \|/);
  assert.match(text, /\| standalone \| 2,000 uniform \| 3 \| 5 \| 19 \|/);
});
