import { runLoad } from '../lib/load.js';
import type { Scenario } from '../lib/scenario.js';
import { throughput, type ThroughputScenario } from './throughput.js';

export const GATEWAY_BARE: ThroughputScenario = {
  name: 'gateway-bare',
  description: 'the gateway as a bare proxy: AUTH=off, RATE_LIMITS=off, same route, same core (PROXY_ENGINE=undici, the default)',
  service: ({ bare }) => bare,
  key: 'none',
};
export const gatewayBare = throughput(GATEWAY_BARE);

export const gatewayBareHttpProxy: Scenario = {
  name: 'gateway-bare-http-proxy',
  description: 'the same bare proxy on the other engine, PROXY_ENGINE=http-proxy',
  expectStatuses: [200],
  run: ({ bareHttpProxy, settings }) => runLoad({ url: `${bareHttpProxy.url}/v1/pets`, settings }),
  proxy: ({ bareHttpProxy }) => bareHttpProxy,
};
