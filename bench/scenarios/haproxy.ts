import { runLoad } from '../lib/load.js';
import type { BenchContext, LoadTarget, Scenario } from '../lib/scenario.js';

const bareTarget = ({ haproxy }: BenchContext): LoadTarget => ({ url: `${haproxy?.url}/v1/pets` });
const jwtTarget = ({ haproxyJwt, haproxyKey }: BenchContext): LoadTarget => ({
  url: `${haproxyJwt?.url}/v1/pets`,
  headers: { authorization: `Bearer ${haproxyKey}` },
});

export const haproxyBare: Scenario = {
  name: 'haproxy-bare',
  description: 'HAProxy (mode http, nbthread 1, upstream connections reused) in front of the same core: a reference proxy',
  expectStatuses: [200],
  needsHaproxy: true,
  reference: true,
  run: (context) => runLoad({ ...bareTarget(context), settings: context.settings }),
  proxy: ({ haproxy }) => haproxy,
  wrk: bareTarget,
};

export const haproxyJwt: Scenario = {
  name: 'haproxy-jwt-stick-table',
  description:
    "HAProxy as above, with jwt_verify of one key's signature and claims on every request and a stick-table limit per sub (http_req_rate(60s), never refusing): the reference for keys and limits in process",
  expectStatuses: [200],
  needsHaproxy: true,
  reference: true,
  run: (context) => runLoad({ ...jwtTarget(context), settings: context.settings }),
  proxy: ({ haproxyJwt }) => haproxyJwt,
  wrk: jwtTarget,
};
