// The operator's view, end to end: a real Prometheus scrapes a running gateway (with Redis) on free
// loopback ports, and every query of the Grafana dashboard in the repository returns data.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { commandSkipReason, freePort, redisSkipReason, startRedis, temporaryDir, type RedisServer } from '@animal-store/testkit';
import {
  createTestKeyring,
  PROXY_TEST_PATHS,
  type RecordingUpstream,
  type RunningGateway,
  startGateway,
  startRecordingUpstream,
  writeDocument,
  writePlansFile,
} from '@animal-store/gateway/testing';

const DASHBOARD = new URL('../packages/gateway/observability/grafana-dashboard.json', import.meta.url);

interface Panel {
  readonly title: string;
  readonly targets?: readonly { readonly expr: string }[];
}

/** Every query of the dashboard, as Prometheus gets it: Grafana's `$__rate_interval` made 30 s. */
function dashboardQueries(): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] };
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr.replaceAll('$__rate_interval', '30s') })),
  );
}

const skip = commandSkipReason('prometheus', 'apt-get install prometheus; .ci/run does') || redisSkipReason();

describe('the Grafana dashboard against a real Prometheus scraping the gateway', { skip }, () => {
  let redis: RedisServer;
  let upstream: RecordingUpstream;
  let gateway: RunningGateway;
  let prometheus: ChildProcess;
  let prometheusUrl: string;
  let dir: string;
  let keyring: Awaited<ReturnType<typeof createTestKeyring>>;

  before(async () => {
    dir = temporaryDir('prometheus-');
    redis = await startRedis();
    upstream = await startRecordingUpstream();
    keyring = await createTestKeyring();
    const small = { minute: 4, day: 100_000 };
    const large = { minute: 100_000, day: 1_000_000 };
    const plans = writePlansFile({ plans: { free: small, pro: large, business: large, enterprise: large }, anonymous: large });
    gateway = await startGateway({
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      JWKS_FILE: keyring.files.jwks,
      PLANS_FILE: plans,
      REDIS_URL: redis.url,
      METRICS_PORT: '0',
    });
    const target = new URL(gateway.metricsUrl as string);
    writeFileSync(
      join(dir, 'prometheus.yml'),
      `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: gateway\n    static_configs:\n      - targets: ['${target.host}']\n`,
    );
    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      'prometheus',
      [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 20_000;
    while (
      !(await fetch(`${prometheusUrl}/-/ready`).then(
        (res) => res.ok,
        () => false,
      ))
    ) {
      if (prometheus.exitCode !== null) throw new Error(`prometheus exited with ${prometheus.exitCode}`);
      if (Date.now() > deadline) throw new Error('prometheus did not become ready');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Prometheus scrapes a few seconds after it is ready (target discovery settles first): traffic
    // before its first scrape would fall outside every rate window.
    const query = (expr: string) =>
      fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}`).then((res) => res.json() as Promise<{ data?: { result: unknown[] } }>);
    while ((await query('up{job="gateway"} == 1')).data?.result.length !== 1) {
      if (Date.now() > deadline) throw new Error('prometheus did not scrape the gateway');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
  after(async () => {
    if (prometheus !== undefined && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await gateway?.close();
    await upstream?.close();
    await redis?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  test('every query of the dashboard returns data', async () => {
    const free = (await keyring.issue({ plan: 'free', sub: 'dash-free' })).token;
    const business = (await keyring.issue({ plan: 'business', sub: 'dash-business' })).token;
    const get = (path: string, key: string) =>
      fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${key}` } }).then((res) => res.arrayBuffer().then(() => res.status));
    // A steady mix for a few scrapes: 200s, 429s once the free key's 4 a minute are spent, 502s.
    const seen = new Set<number>();
    for (const end = Date.now() + 5000; Date.now() < end;) {
      for (const status of await Promise.all([get('/v1/echo', business), get('/v1/echo', free), get('/v1/reset', business)])) seen.add(status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual([...seen].sort(), [200, 429, 502]);
    await new Promise((resolve) => setTimeout(resolve, 2000)); // a last scrape or two after the traffic

    const queries = dashboardQueries();
    assert.ok(queries.length >= 8, 'the dashboard has its panels');
    const empty: string[] = [];
    for (const { panel, expr } of queries) {
      const res = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await res.json()) as { status: string; error?: string; data: { result: { value: [number, string] }[] } };
      assert.equal(body.status, 'success', `${panel}: ${expr}: ${body.error ?? ''}`);
      const values = body.data.result.map((sample) => Number(sample.value[1]));
      if (values.length === 0 || !values.some((value) => Number.isFinite(value))) empty.push(`${panel}: ${expr} → ${JSON.stringify(body.data.result)}`);
    }
    assert.deepEqual(empty, [], 'queries without data');
  });
});
