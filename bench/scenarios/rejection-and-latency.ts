import { runLoad } from '../lib/load.js';
import type { Scenario } from '../lib/scenario.js';

export const rejectionPath: Scenario = {
  name: 'gateway-rejection',
  description: 'one free key far over its limit (the shipped plans): every answer a 429 that never reaches the upstream',
  expectStatuses: [429],
  run: ({ rejecting, rejectedKey, settings }) => runLoad({ url: `${rejecting.url}/v1/pets`, settings, headers: { authorization: `Bearer ${rejectedKey}` } }),
};

/** A fixed request rate, well under saturation: latency rather than throughput. */
const RATE = 1000;

export const latencyCore: Scenario = {
  name: 'latency-core-1000rps',
  description: `the core directly at a fixed ${RATE} req/s`,
  expectStatuses: [200],
  run: ({ core, settings }) => runLoad({ url: `${core.url}/v1/pets`, settings, overallRate: RATE }),
};

export const latencyGateway: Scenario = {
  name: 'latency-gateway-1000rps',
  description: `the full pipeline (one key, limits in process) at a fixed ${RATE} req/s`,
  expectStatuses: [200],
  run: ({ limitsMemory, oneKey, settings }) => runLoad({ url: `${limitsMemory.url}/v1/pets`, settings, overallRate: RATE, headers: { authorization: `Bearer ${oneKey}` } }),
};
