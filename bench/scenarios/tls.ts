import { runLoad } from '../lib/load.js';
import type { BenchContext, LoadTarget, Scenario } from '../lib/scenario.js';

/*
 * One figure with TLS (issue 31): the full pipeline on Redis terminating TLS itself, beside HAProxy
 * terminating TLS in front of its jwt_verify + stick table, one core each (the gateway's worker and
 * its primary; HAProxy nbthread 1), with the same self-signed certificate. Both generators keep
 * their connections alive, as in every other scenario: a run pays one handshake per connection,
 * and every request its encryption.
 */

const gatewayTarget = ({ limitsRedisTls, oneKey }: BenchContext): LoadTarget => ({
  url: `${limitsRedisTls?.url}/v1/pets`,
  headers: { authorization: `Bearer ${oneKey}` },
});
const haproxyTarget = ({ haproxyJwtTls, haproxyKey }: BenchContext): LoadTarget => ({
  url: `${haproxyJwtTls?.url}/v1/pets`,
  headers: { authorization: `Bearer ${haproxyKey}` },
});

export const gatewayLimitsRedisTls: Scenario = {
  name: 'gateway-limits-redis-tls',
  description: 'gateway-limits-redis over HTTPS: the gateway terminates TLS (TLS_CERT_FILE, TLS_KEY_FILE), connections kept alive',
  expectStatuses: [200],
  needsRedis: true,
  needsTls: true,
  run: (context) => runLoad({ ...gatewayTarget(context), settings: context.settings }),
  proxy: ({ limitsRedisTls }) => limitsRedisTls,
  wrk: gatewayTarget,
};

export const haproxyJwtTls: Scenario = {
  name: 'haproxy-jwt-stick-table-tls',
  description: 'haproxy-jwt-stick-table over HTTPS: HAProxy terminates TLS (bind … ssl crt, the same certificate), connections kept alive',
  expectStatuses: [200],
  needsHaproxy: true,
  needsTls: true,
  reference: true,
  run: (context) => runLoad({ ...haproxyTarget(context), settings: context.settings }),
  proxy: ({ haproxyJwtTls: haproxy }) => haproxy,
  wrk: haproxyTarget,
};
