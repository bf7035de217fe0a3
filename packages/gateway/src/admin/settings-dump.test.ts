import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../config/index.js';
import { REDACTED, settingsDump } from './settings-dump.js';

test('the dump shows every setting, and no secret: URL passwords and the exporter headers are left out', () => {
  const loaded = loadConfig({
    AUTH: 'off',
    REDIS_URL: 'redis://gateway:s3cret-redis@127.0.0.1:6379',
    UPSTREAM_URL: 'http://svc:s3cret-upstream@backend:8081/api',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    OTEL_EXPORTER_OTLP_HEADERS: 'api-key=s3cret-otlp,x-team=ops',
    TRUST_PROXY: '10.0.0.0/8, ::1',
    SHADOW_PLANS: 'trial',
    METRICS_PORT: '9464',
  });
  assert.ok(loaded.ok);
  const dump = settingsDump(loaded.config, { workers: 2 }) as { settings: Record<string, Record<string, unknown>>; workers: number; plans: unknown };
  const text = JSON.stringify(dump);
  assert.doesNotMatch(text, /s3cret/);
  assert.equal(dump.settings.redis?.url, `redis://gateway:${encodeURIComponent(REDACTED)}@127.0.0.1:6379`);
  assert.equal(dump.settings.upstream?.url, `http://svc:${encodeURIComponent(REDACTED)}@backend:8081/api`);
  assert.deepEqual(dump.settings.tracing?.headers, { 'api-key': REDACTED, 'x-team': REDACTED });
  const proxies = dump.settings.trustProxy as unknown as string[];
  assert.equal(proxies.length, 2, 'the trusted proxies, as rules');
  assert.ok(proxies.some((rule) => rule.includes('10.0.0.0/8')));
  assert.deepEqual(dump.settings.rateLimits?.shadowPlans, ['trial']);
  assert.equal(dump.settings.publicBasePath, null, 'an unset setting shows, as null');
  assert.equal(dump.workers, 2);
  assert.equal(dump.plans, null);
});
