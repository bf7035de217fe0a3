import { runLoad } from '../lib/load.js';
import type { BenchContext, LoadTarget, Scenario } from '../lib/scenario.js';

const target = ({ bare }: BenchContext): LoadTarget => ({ url: `${bare.url}/v1/pets` });

export const gatewayBare: Scenario = {
  name: 'gateway-bare',
  description: 'the gateway as a bare proxy: AUTH=off, RATE_LIMITS=off, same route, same core (PROXY_ENGINE=undici, the default)',
  expectStatuses: [200],
  run: (context) => runLoad({ ...target(context), settings: context.settings }),
  proxy: ({ bare }) => bare,
  wrk: target,
};

export const gatewayBareHttpProxy: Scenario = {
  name: 'gateway-bare-http-proxy',
  description: 'the same bare proxy on the other engine, PROXY_ENGINE=http-proxy',
  expectStatuses: [200],
  run: ({ bareHttpProxy, settings }) => runLoad({ url: `${bareHttpProxy.url}/v1/pets`, settings }),
  proxy: ({ bareHttpProxy }) => bareHttpProxy,
};
