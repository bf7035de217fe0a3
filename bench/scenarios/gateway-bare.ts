import { runLoad } from '../lib/load.js';
import type { Scenario } from '../lib/scenario.js';

export const gatewayBare: Scenario = {
  name: 'gateway-bare',
  description: 'the gateway as a bare proxy: AUTH=off, same route, same core',
  expectStatuses: [200],
  run: ({ bare, settings }) => runLoad({ url: `${bare.url}/v1/pets`, settings }),
};
