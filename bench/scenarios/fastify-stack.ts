import { runLoad } from '../lib/load.js';
import type { BenchContext, LoadTarget, Scenario } from '../lib/scenario.js';

const target = ({ fastifyStack, oneKey }: BenchContext): LoadTarget => ({
  url: `${fastifyStack?.url}/v1/pets`,
  headers: { authorization: `Bearer ${oneKey}` },
});

export const fastifyStack: Scenario = {
  name: 'fastify-stack',
  description:
    'Fastify 5 + @fastify/http-proxy + @fastify/rate-limit on the same Redis (never refusing) + jose verifying the same EdDSA key on every request, uncached: the reference for a Node stack',
  expectStatuses: [200],
  needsRedis: true,
  reference: true,
  run: (context) => runLoad({ ...target(context), settings: context.settings }),
  proxy: ({ fastifyStack: stack }) => stack,
  wrk: target,
};
