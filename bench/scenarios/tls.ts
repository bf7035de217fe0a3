import { throughput, type ThroughputScenario } from './throughput.js';

/*
 * One figure with TLS (issue 31): the full pipeline on Redis terminating TLS itself, beside HAProxy
 * terminating TLS in front of its jwt_verify + stick table, one core each (the gateway's worker and
 * its primary; HAProxy nbthread 1), with the same self-signed certificate. Both generators keep
 * their connections alive, as in every other scenario: a run pays one handshake per connection,
 * and every request its encryption.
 */

export const GATEWAY_LIMITS_REDIS_TLS: ThroughputScenario = {
  name: 'gateway-limits-redis-tls',
  description: 'gateway-limits-redis over HTTPS: the gateway terminates TLS (TLS_CERT_FILE, TLS_KEY_FILE), connections kept alive',
  service: ({ limitsRedisTls }) => limitsRedisTls,
  key: 'gateway',
  needsRedis: true,
  needsTls: true,
};

export const HAPROXY_JWT_TLS: ThroughputScenario = {
  name: 'haproxy-jwt-stick-table-tls',
  description: 'haproxy-jwt-stick-table over HTTPS: HAProxy terminates TLS (bind … ssl crt, the same certificate), connections kept alive',
  service: ({ haproxyJwtTls }) => haproxyJwtTls,
  key: 'haproxy',
  needsHaproxy: true,
  needsTls: true,
  reference: true,
};

export const gatewayLimitsRedisTls = throughput(GATEWAY_LIMITS_REDIS_TLS);
export const haproxyJwtTls = throughput(HAPROXY_JWT_TLS);
