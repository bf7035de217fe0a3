import { throughput, type ThroughputScenario } from './throughput.js';

export const NGINX_PROXY_PASS: ThroughputScenario = {
  name: 'nginx-proxy-pass',
  description: 'nginx proxy_pass with upstream keep-alive in front of the same core: the reference for a proxy on this machine',
  service: ({ nginx }) => nginx,
  key: 'none',
  needsNginx: true,
  reference: true,
};
export const nginxProxyPass = throughput(NGINX_PROXY_PASS);
