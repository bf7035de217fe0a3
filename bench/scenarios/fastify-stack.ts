import { throughput, type ThroughputScenario } from './throughput.js';

export const FASTIFY_STACK: ThroughputScenario = {
  name: 'fastify-stack',
  description:
    'Fastify 5 + @fastify/http-proxy + @fastify/rate-limit on the same Redis, per account (never refusing) + jose verifying the same EdDSA key on every request, uncached: the reference for a Node stack',
  service: ({ fastifyStack }) => fastifyStack,
  key: 'gateway',
  needsRedis: true,
  reference: true,
};
export const fastifyStack = throughput(FASTIFY_STACK);
