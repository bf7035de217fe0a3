import { runLoad } from '../lib/load.js';
import type { Scenario } from '../lib/scenario.js';

export const nginxProxyPass: Scenario = {
  name: 'nginx-proxy-pass',
  description: 'nginx proxy_pass with upstream keep-alive in front of the same core: the reference for a proxy on this machine',
  expectStatuses: [200],
  needsNginx: true,
  reference: true,
  run: ({ nginx, settings }) => runLoad({ url: `${nginx?.url}/v1/pets`, settings }),
};
