import type { Scenario } from '../lib/scenario.js';
import { coreDirect } from './core-direct.js';
import { fastifyStack } from './fastify-stack.js';
import { gatewayAuthManyKeysCold, gatewayAuthManyKeysWarm, gatewayAuthOneKey } from './gateway-auth.js';
import { gatewayBare, gatewayBareHttpProxy } from './gateway-bare.js';
import { gatewayAuthRedis, gatewayLimitsMemory, gatewayLimitsRedis, gatewayLimitsRedisControl } from './gateway-limits.js';
import { gatewayMetrics, gatewayTracing } from './gateway-observability.js';
import { haproxyBare, haproxyJwt } from './haproxy.js';
import { nginxProxyPass } from './nginx.js';
import { latencyCore, latencyGateway, latencyGatewayRedis, rejectionPath } from './rejection-and-latency.js';

/** Paired scenarios run alternately, `rounds` times, so drift on the machine hits both alike. */
export const PLAN: { scenario: Scenario; repeat: boolean }[] = [
  { scenario: coreDirect, repeat: false },
  { scenario: nginxProxyPass, repeat: true },
  { scenario: haproxyBare, repeat: true },
  { scenario: haproxyJwt, repeat: true },
  { scenario: fastifyStack, repeat: true },
  { scenario: gatewayBare, repeat: true },
  { scenario: gatewayBareHttpProxy, repeat: true },
  { scenario: gatewayAuthOneKey, repeat: true },
  { scenario: gatewayLimitsMemory, repeat: true },
  { scenario: gatewayAuthRedis, repeat: true },
  { scenario: gatewayLimitsRedis, repeat: true },
  { scenario: gatewayMetrics, repeat: true },
  { scenario: gatewayTracing, repeat: true },
  { scenario: gatewayLimitsRedisControl, repeat: true },
  { scenario: gatewayAuthManyKeysCold, repeat: false },
  { scenario: gatewayAuthManyKeysWarm, repeat: true },
  { scenario: rejectionPath, repeat: true },
  { scenario: latencyCore, repeat: true },
  { scenario: latencyGateway, repeat: true },
  { scenario: latencyGatewayRedis, repeat: true },
];
