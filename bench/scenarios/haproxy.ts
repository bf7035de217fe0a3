import { throughput, type ThroughputScenario } from './throughput.js';

export const HAPROXY_BARE: ThroughputScenario = {
  name: 'haproxy-bare',
  description: 'HAProxy (mode http, nbthread 1, upstream connections reused) in front of the same core: a reference proxy',
  service: ({ haproxy }) => haproxy,
  key: 'none',
  needsHaproxy: true,
  reference: true,
};

export const HAPROXY_JWT: ThroughputScenario = {
  name: 'haproxy-jwt-stick-table',
  description:
    "HAProxy as above, with jwt_verify of the key's signature and claims on every request and a stick-table limit per sub (http_req_rate(60s), never refusing): the reference for keys and limits in process",
  service: ({ haproxyJwt }) => haproxyJwt,
  key: 'haproxy',
  needsHaproxy: true,
  reference: true,
};

export const haproxyBare = throughput(HAPROXY_BARE);
export const haproxyJwt = throughput(HAPROXY_JWT);
