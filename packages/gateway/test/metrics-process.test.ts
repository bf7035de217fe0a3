import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort, startService } from '@animal-store/testkit';
import { PROXY_TEST_PATHS, startRecordingUpstream, writeDocument } from './support/index.js';

test('the gateway process serves /metrics on METRICS_PORT, loopback by default, and stops it with the rest on SIGTERM', async () => {
  const upstream = await startRecordingUpstream();
  const metricsPort = await freePort();
  const gateway = await startService({
    service: 'gateway',
    env: { PORT: '0', AUTH: 'off', UPSTREAM_URL: upstream.url, OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS), METRICS_PORT: String(metricsPort) },
  });
  try {
    assert.equal((await fetch(`${gateway.url}/v1/echo`)).status, 200);
    const deadline = Date.now() + 5000;
    while (!gateway.output().includes('metrics listening') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.match(gateway.output(), new RegExp(`"metricsUrl":"http://127\\.0\\.0\\.1:${metricsPort}/metrics"`));
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(res.status, 200);
    assert.match(
      await res.text(),
      /^http_server_request_duration_seconds_count\{http_request_method="GET",http_route="\/v1\/echo",http_response_status_code="200",outcome="proxied"\} 1$/m,
    );
    assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/v1/echo`)).status, 404, 'the admin listener serves nothing else');
    assert.equal((await fetch(`${gateway.url}/metrics`)).status, 404, 'the public port does not serve the metrics');
    assert.equal(await gateway.stop('SIGTERM'), 0, gateway.output());
    await assert.rejects(fetch(`http://127.0.0.1:${metricsPort}/metrics`), 'the admin listener is closed too');
  } finally {
    await upstream.close();
  }
});
