import { runLoad } from '../lib/load.js';
import type { BenchContext, LoadTarget, Scenario } from '../lib/scenario.js';

const target = ({ nginx }: BenchContext): LoadTarget => ({ url: `${nginx?.url}/v1/pets` });

export const nginxProxyPass: Scenario = {
  name: 'nginx-proxy-pass',
  description: 'nginx proxy_pass with upstream keep-alive in front of the same core: the reference for a proxy on this machine',
  expectStatuses: [200],
  needsNginx: true,
  reference: true,
  run: (context) => runLoad({ ...target(context), settings: context.settings }),
  proxy: ({ nginx }) => nginx,
  wrk: target,
};
