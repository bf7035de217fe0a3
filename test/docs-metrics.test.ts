import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { startService, type ServiceProcess } from '@animal-store/testkit';
import { DEFAULT_PLANS_FILE, ERRORS, readPlansFile } from '@animal-store/gateway';
import { createTestKeyring, startGateway, type RunningGateway } from '@animal-store/gateway/testing';

// docs/operating.md lists the label values the metrics can carry; here a gateway is made to emit
// the usual ones (a key, no key, the usage endpoint, a method of no HTTP standard) and every
// value of a label with a closed set of values must be named in the metrics section (a row may
// say "as above"). Two sets are named by reference: the plans ("a plan") and, for `outcome`, the
// error codes ("or the error code the gateway answered with", listed in docs/gateway.md).

const OPERATING = readFileSync(new URL('../docs/operating.md', import.meta.url), 'utf8');
/** Labels whose values are open (routes, statuses, addresses, versions): only their names are checked. */
const OPEN_LABELS = new Set(['http_route', 'http_response_status_code', 'server_address', 'server_port', 'version', 'node_version', 'le', 'command']);
const METRICS_SECTION = OPERATING.slice(OPERATING.indexOf('## Metrics'), OPERATING.indexOf('## Traces'));
const LOG_SECTION = OPERATING.slice(OPERATING.indexOf('## Logs'), OPERATING.indexOf('## Metrics'));
const BY_REFERENCE: Record<string, readonly string[]> = { plan: Object.keys(readPlansFile(DEFAULT_PLANS_FILE).plans), outcome: Object.keys(ERRORS) };

let core: ServiceProcess;
let gateway: RunningGateway;

before(async () => {
  const keyring = await createTestKeyring();
  core = await startService({ service: 'core', env: { PORT: '0' } });
  gateway = await startGateway({ UPSTREAM_URL: core.url, JWKS_FILE: keyring.files.jwks, RATE_LIMITS: 'on', METRICS_PORT: '0' });
  const { token } = await keyring.issue({ plan: 'pro', sub: 'docs-metrics' });
  const auth = { authorization: `Bearer ${token}` };
  await fetch(`${gateway.url}/v1/pets`, { headers: auth });
  await fetch(`${gateway.url}/v1/pets`);
  await fetch(`${gateway.url}/v1/usage`, { headers: auth });
  await fetch(`${gateway.url}/v1/pets`, { method: 'PROPFIND', headers: auth });
});
after(async () => {
  await gateway?.close();
  await core?.stop();
});

/** The row of `metric` in the metrics table. */
const rowOf = (metric: string) => OPERATING.split('\n').find((line) => line.startsWith(`| \`${metric}\` |`));

test('docs/operating.md names every label and every closed label value the gateway emits', async () => {
  assert.ok(gateway.metricsUrl !== undefined);
  const text = await (await fetch(gateway.metricsUrl)).text();
  const missing = new Set<string>();
  for (const [, name = '', labels = ''] of text.matchAll(/^((?:http_|gateway_)\w*?)(?:_bucket|_count|_sum)?\{([^}]*)\}/gm)) {
    const row = rowOf(name) ?? rowOf(name.replace(/_(bucket|count|sum)$/, ''));
    if (row === undefined) {
      missing.add(`${name}: no row`);
      continue;
    }
    for (const [, label = '', value = ''] of labels.matchAll(/(\w+)="([^"]*)"/g)) {
      if (label !== 'le' && !row.includes(`\`${label}\``)) missing.add(`${name}: label ${label}`);
      // `outcome` takes the log's values, which the metric's row points to.
      const named =
        METRICS_SECTION.includes(`\`${value}\``) ||
        (label === 'outcome' && LOG_SECTION.includes(`\`${value}\``)) ||
        (BY_REFERENCE[label]?.includes(value) ?? false);
      if (!OPEN_LABELS.has(label) && value !== '' && !named) missing.add(`${name}: ${label}="${value}"`);
    }
  }
  assert.deepEqual([...missing], []);
  for (const value of ['plan="usage"', 'outcome="usage"', 'http_request_method="_OTHER"', 'server_port='])
    assert.ok(text.includes(value), `the gateway emitted ${value}`);
});

test("docs/operating.md lists the request-duration histograms' buckets as the gateway emits them", async () => {
  assert.ok(gateway.metricsUrl !== undefined);
  const text = await (await fetch(gateway.metricsUrl)).text();
  const row = rowOf('http_server_request_duration_seconds') ?? '';
  const documented = [...(/Buckets, in seconds: ([^:]+):/.exec(row)?.[1]?.matchAll(/`([\d.]+)`/g) ?? [])].map((match) => match[1]);
  for (const metric of ['http_server_request_duration_seconds', 'http_client_request_duration_seconds']) {
    const first = new RegExp(`^${metric}_bucket\\{(.*),le="[^"]+"\\}`, 'm').exec(text)?.[1];
    assert.ok(first !== undefined, `${metric} has buckets`);
    const emitted = [...text.matchAll(new RegExp(`^${metric}_bucket\\{${first.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')},le="([^"]+)"\\}`, 'gm'))].map(
      (match) => match[1],
    );
    assert.deepEqual(emitted, [...documented, '+Inf'], metric);
  }
});
