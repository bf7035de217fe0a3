import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../src/config/index.js';
import {
  createTestKeyring,
  PROXY_TEST_PATHS,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  writeDocument,
  writePlansFile,
} from './support/index.js';

/** Plans where a free key is refused after 4 requests a minute, and no key is ever banned. */
function writeSmallPlans(): string {
  const plan = { minute: 4, day: 1000 };
  return writePlansFile({ plans: { free: plan, pro: plan, business: plan, enterprise: plan }, anonymous: { minute: 100, day: 1000 } });
}

/** The value of one sample of Prometheus's text format, by name and exact label set; 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.keys(found).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return 0;
}

describe('Prometheus metrics on the admin listener', () => {
  let keyring: Awaited<ReturnType<typeof createTestKeyring>>;
  let upstream: RecordingUpstream;
  let gateway: RunningGateway;

  before(async () => {
    keyring = await createTestKeyring();
    upstream = await startRecordingUpstream();
    gateway = await startGateway({
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      JWKS_FILE: keyring.files.jwks,
      PLANS_FILE: writeSmallPlans(),
      METRICS_PORT: '0',
    });
  });
  after(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  test('a known mix of 200s, 401s, 404s, 429s and a 502 reads back as exact counts', async () => {
    const { token } = await keyring.issue({ plan: 'free', sub: 'acme-metrics' });
    const get = async (path: string, key?: string) => {
      const res = await fetch(`${gateway.url}${path}`, { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      return res.status;
    };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push(await get('/v1/echo', token));
    statuses.push(await get('/v1/reset', token));
    for (let i = 0; i < 2; i++) statuses.push(await get('/v1/echo', token));
    for (let i = 0; i < 2; i++) statuses.push(await get('/v1/echo'));
    for (let i = 0; i < 3; i++) statuses.push(await get(`/v1/nowhere/${i}`));
    assert.deepEqual(statuses, [200, 200, 200, 502, 429, 429, 401, 401, 404, 404, 404]);

    const res = await fetch(gateway.metricsUrl as string);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const requests = (route: string, status: string, outcome: string) =>
      sample(text, 'http_server_request_duration_seconds_count', { http_request_method: 'GET', http_route: route, http_response_status_code: status, outcome });
    assert.equal(requests('/v1/echo', '200', 'proxied'), 3);
    assert.equal(requests('/v1/reset', '502', 'bad_gateway'), 1);
    assert.equal(requests('/v1/echo', '429', 'rate_limited'), 2);
    assert.equal(requests('/v1/echo', '401', 'unauthorized'), 2);
    assert.equal(requests('unmatched', '404', 'not_found'), 3);
    assert.equal(sample(text, 'http_server_active_requests', { http_request_method: 'GET' }), 0);

    const decisions = (plan: string, decision: string) => sample(text, 'gateway_ratelimit_decisions_total', { plan, decision });
    assert.equal(decisions('free', 'allowed'), 4);
    assert.equal(decisions('free', 'limited'), 2);
    assert.equal(decisions('anonymous', 'allowed'), 5, 'two keyless requests and three unknown paths');
    assert.equal(sample(text, 'gateway_auth_outcomes_total', { outcome: 'authenticated' }), 6);
    assert.equal(sample(text, 'gateway_auth_outcomes_total', { outcome: 'missing' }), 2);
    assert.equal(sample(text, 'gateway_key_cache_lookups_total', { result: 'miss' }), 1);
    assert.equal(sample(text, 'gateway_key_cache_lookups_total', { result: 'hit' }), 5);

    const port = new URL(upstream.url).port;
    const upstreamCalls = (labels: Record<string, string>) =>
      sample(text, 'http_client_request_duration_seconds_count', { http_request_method: 'GET', server_address: '127.0.0.1', server_port: port, ...labels });
    assert.equal(upstreamCalls({ http_response_status_code: '200' }), 3);
    assert.equal(upstreamCalls({ error_type: 'bad_gateway' }), 1);
    assert.equal(sample(text, 'gateway_upstream_up', {}), 1);
    assert.match(text, /^gateway_build_info\{version="\d+\.\d+\.\d+",node_version="v\d+\.\d+\.\d+"\} 1$/m);
    assert.match(text, /^process_cpu_user_seconds_total \S+$/m, "prom-client's process metrics");
    assert.equal(text.includes('gateway_redis_up'), false, 'no Redis, no Redis gauge');

    // Bounded labels: never the raw path, the key, the account or the client's address.
    for (const unbounded of ['/v1/nowhere', token.split('.')[2] as string, 'acme-metrics']) assert.equal(text.includes(unbounded), false, unbounded);
  });

  test('the public port does not serve the metrics', async () => {
    const res = await fetch(`${gateway.url}/metrics`);
    assert.equal(res.status, 404);
    assert.doesNotMatch(await res.text(), /http_server_request_duration_seconds/);
  });
});

test('without METRICS_PORT there is no admin listener; METRICS_PORT may not be the public port', async () => {
  const upstream = await startRecordingUpstream();
  const gateway = await startGateway({ UPSTREAM_URL: upstream.url, OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS) });
  assert.equal(gateway.metricsUrl, undefined);
  assert.equal(gateway.config.metrics, undefined);
  await gateway.close();
  await upstream.close();
  const same = loadConfig({ AUTH: 'off', PORT: '9100', METRICS_PORT: '9100' });
  assert.equal(same.ok, false);
  assert.match(same.ok ? '' : same.problems.join('\n'), /METRICS_PORT.*must differ from PORT/);
  const host = loadConfig({ AUTH: 'off', METRICS_PORT: '9464' });
  assert.deepEqual(host.ok ? host.config.metrics : undefined, { host: '127.0.0.1', hosts: [], port: 9464 });
});
