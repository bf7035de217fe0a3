import { runLoad } from '../lib/load.js';
import type { Scenario } from '../lib/scenario.js';

export const rejectionPath: Scenario = {
  name: 'gateway-rejection',
  description: 'one free key far over its limit (the shipped plans): every answer a 429 that never reaches the upstream',
  expectStatuses: [429],
  // The free plan allows 60 a minute, and a round can come over a minute after the last one: the
  // key is first brought over its limit again (at most 61 requests), outside the measurement.
  prepare: async ({ rejecting, rejectedKey }) => {
    for (let i = 0; i < 61; i++) {
      const res = await fetch(`${rejecting.url}/v1/pets`, { headers: { authorization: `Bearer ${rejectedKey}` } });
      await res.arrayBuffer();
      if (res.status === 429) return;
    }
    throw new Error('the free key was never refused: are the shipped plans in use?');
  },
  run: ({ rejecting, rejectedKey, settings }) => runLoad({ url: `${rejecting.url}/v1/pets`, settings, headers: { authorization: `Bearer ${rejectedKey}` } }),
  proxy: ({ rejecting }) => rejecting,
};

/**
 * A fixed request rate, well under saturation: latency rather than throughput. autocannon paces a
 * rate per connection per second (each connection sends its share back to back at the top of each
 * second, then waits), so with 50 connections a "1,000 req/s" run is 50-deep bursts and measures
 * queueing inside them. One connection sending at most 1,000 requests a second measures what a
 * request costs end to end, which is what the gateway adds.
 */
const RATE = 1000;
const CONNECTIONS = 1;

export const latencyCore: Scenario = {
  name: 'latency-core-1000rps',
  description: `the core directly at ${RATE} req/s from one connection`,
  expectStatuses: [200],
  run: ({ core, settings }) => runLoad({ url: `${core.url}/v1/pets`, settings, overallRate: RATE, connections: CONNECTIONS }),
};

export const latencyGateway: Scenario = {
  name: 'latency-gateway-1000rps',
  description: `the full pipeline (one key, limits in process) at ${RATE} req/s from one connection`,
  expectStatuses: [200],
  run: ({ limitsMemory, oneKey, settings }) =>
    runLoad({ url: `${limitsMemory.url}/v1/pets`, settings, overallRate: RATE, connections: CONNECTIONS, headers: { authorization: `Bearer ${oneKey}` } }),
  proxy: ({ limitsMemory }) => limitsMemory,
};

export const latencyGatewayRedis: Scenario = {
  name: 'latency-gateway-redis-1000rps',
  description: `the full pipeline with revocations and limits in Redis at ${RATE} req/s from one connection`,
  expectStatuses: [200],
  needsRedis: true,
  run: ({ limitsRedis, oneKey, settings }) =>
    runLoad({
      url: `${(limitsRedis as NonNullable<typeof limitsRedis>).url}/v1/pets`,
      settings,
      overallRate: RATE,
      connections: CONNECTIONS,
      headers: { authorization: `Bearer ${oneKey}` },
    }),
  proxy: ({ limitsRedis }) => limitsRedis,
};
