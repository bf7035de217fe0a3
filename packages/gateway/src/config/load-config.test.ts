import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from './load-config.js';

test('defaults: 8080 on loopback in front of the core on 8081, keys required', () => {
  const result = loadConfig({ JWKS_FILE: 'keys/jwks.json' });
  assert.ok(result.ok);
  const { config } = result;
  assert.equal(config.port, 8080);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.upstream.url.href, 'http://127.0.0.1:8081/');
  assert.equal(config.bodyLimitBytes, 65_536);
  assert.equal(config.enforceSunset, true);
  assert.match(config.openApiFile, /packages\/core\/openapi\.json$/);
  assert.equal(config.trustProxy, undefined, 'no proxy is trusted by default');
  assert.ok(Object.isFrozen(config) && Object.isFrozen(config.upstream));
  assert.deepEqual(config.auth, {
    mode: 'required',
    keys: { kind: 'file', path: resolve('keys/jwks.json') },
    issuer: 'animal-store',
    audience: 'animal-store-production',
    algorithms: ['EdDSA'],
    clockToleranceSeconds: 5,
    cacheSize: 100_000,
    revocationsFile: undefined,
  });
  assert.equal(config.redis, undefined);
});

test('keys: exactly one source unless AUTH=off; inline JWKS holds public keys only', () => {
  const none = loadConfig({});
  assert.ok(!none.ok);
  assert.match(none.problems.join('\n'), /^AUTH: AUTH=required needs one key source/m);
  const two = loadConfig({ JWKS_FILE: 'a', JWKS_URL: 'https://keys.example.test/jwks.json' });
  assert.ok(!two.ok);
  assert.match(two.problems.join('\n'), /give one key source, not JWKS_FILE and JWKS_URL/);
  assert.ok(loadConfig({ AUTH: 'off' }).ok);
  const remote = loadConfig({ JWKS_URL: 'https://keys.example.test/jwks.json', JWKS_TIMEOUT_MS: '500' });
  assert.ok(remote.ok && remote.config.auth.mode === 'required' && remote.config.auth.keys.kind === 'remote');
  const secret = loadConfig({ JWKS: '{"keys":[{"kty":"OKP","crv":"Ed25519","x":"a","d":"private"}]}' });
  assert.ok(!secret.ok);
  assert.match(secret.problems.join('\n'), /^JWKS: must be a JWKS of public keys/m);
});

test('KEY_ALGORITHMS accepts asymmetric algorithms only', () => {
  for (const bad of ['HS256', 'none', 'EdDSA,HS512', '']) {
    const result = loadConfig({ AUTH: 'off', KEY_ALGORITHMS: bad });
    if (bad === '') assert.ok(result.ok, 'empty means the default');
    else assert.ok(!result.ok, bad);
  }
  const ok = loadConfig({ JWKS_FILE: 'k', KEY_ALGORITHMS: 'EdDSA, ES256' });
  assert.ok(ok.ok && ok.config.auth.mode === 'required');
  assert.deepEqual(ok.ok && ok.config.auth.mode === 'required' ? ok.config.auth.algorithms : [], ['EdDSA', 'ES256']);
});

test('TRUST_PROXY takes addresses and CIDRs of both families', () => {
  const result = loadConfig({ AUTH: 'off', TRUST_PROXY: '10.0.0.0/8, 192.168.1.7, fd00::/8' });
  assert.ok(result.ok);
  const trust = result.config.trustProxy;
  assert.ok(trust !== undefined);
  assert.equal(trust.check('10.1.2.3', 'ipv4'), true);
  assert.equal(trust.check('192.168.1.7', 'ipv4'), true);
  assert.equal(trust.check('192.168.1.8', 'ipv4'), false);
  assert.equal(trust.check('fd12::1', 'ipv6'), true);
});

test('every invalid variable is reported at once', () => {
  const result = loadConfig({
    PORT: '-1',
    UPSTREAM_URL: 'ftp://x',
    TRUST_PROXY: '10.0.0.0/33, nonsense',
    ENFORCE_SUNSET: 'maybe',
    UPSTREAM_TIMEOUT_MS: '0',
    LOG_LEVEL: 'chatty',
  });
  assert.ok(!result.ok);
  const names = result.problems.map((problem) => problem.split(':')[0]);
  assert.deepEqual([...new Set(names)].sort(), ['ENFORCE_SUNSET', 'LOG_LEVEL', 'PORT', 'TRUST_PROXY', 'UPSTREAM_TIMEOUT_MS', 'UPSTREAM_URL']);
  assert.equal(names.filter((name) => name === 'TRUST_PROXY').length, 2, 'each bad CIDR is named');
});

test('relative file paths are taken from where npm run was typed (INIT_CWD), else the working directory', () => {
  const files = {
    JWKS_FILE: 'keys/public/jwks.json',
    REVOCATIONS_FILE: 'keys/public/revoked.json',
    PLANS_FILE: 'plans.json',
    OPENAPI_FILE: 'doc/openapi.json',
    TLS_CERT_FILE: 'tls/cert.pem',
    TLS_KEY_FILE: '/etc/tls/key.pem',
  };
  const fromNpm = loadConfig({ ...files, INIT_CWD: '/home/op/store' });
  assert.ok(fromNpm.ok);
  const { config } = fromNpm;
  assert.deepEqual(config.auth.mode === 'required' ? [config.auth.keys, config.auth.revocationsFile] : [], [
    { kind: 'file', path: '/home/op/store/keys/public/jwks.json' },
    '/home/op/store/keys/public/revoked.json',
  ]);
  assert.equal(config.rateLimits.mode === 'on' && config.rateLimits.plansFile, '/home/op/store/plans.json');
  assert.equal(config.openApiFile, '/home/op/store/doc/openapi.json');
  assert.deepEqual(config.tls, { certFile: '/home/op/store/tls/cert.pem', keyFile: '/etc/tls/key.pem' });
  const plain = loadConfig({ JWKS_FILE: 'k.json' });
  assert.ok(plain.ok);
  assert.deepEqual(plain.config.auth.mode === 'required' && plain.config.auth.keys, { kind: 'file', path: resolve('k.json') });
});

test('base paths, TLS and CORS settings are checked', () => {
  const good = loadConfig({
    AUTH: 'off',
    PUBLIC_BASE_PATH: '/api/v2',
    UPSTREAM_BASE_PATH: '/',
    CORS_ORIGINS: 'https://app.example.com, http://localhost:5173',
    FORWARD_AUTHORIZATION: 'true',
  });
  assert.ok(good.ok);
  assert.equal(good.config.publicBasePath, '/api/v2');
  assert.equal(good.config.upstream.basePath, '/');
  assert.equal(good.config.upstream.forwardAuthorization, true);
  assert.deepEqual(good.config.cors, { origins: ['https://app.example.com', 'http://localhost:5173'], maxAgeSeconds: 600 });
  const star = loadConfig({ AUTH: 'off', CORS_ORIGINS: '*' });
  assert.ok(star.ok);
  assert.equal(star.config.cors?.origins, '*');
  const bad = loadConfig({ AUTH: 'off', PUBLIC_BASE_PATH: '/v1/', UPSTREAM_BASE_PATH: '/a/../b', CORS_ORIGINS: 'https://app.example.com/path' });
  assert.ok(!bad.ok);
  assert.deepEqual(bad.problems.map((problem) => problem.split(':')[0]).sort(), ['CORS_ORIGINS', 'PUBLIC_BASE_PATH', 'UPSTREAM_BASE_PATH']);
  const halfTls = loadConfig({ AUTH: 'off', TLS_CERT_FILE: 'cert.pem' });
  assert.ok(!halfTls.ok);
  assert.deepEqual(halfTls.problems, ['TLS_KEY_FILE: TLS needs both TLS_CERT_FILE and TLS_KEY_FILE']);
});

test('timeouts that cannot work together stop the start, each problem naming both settings', () => {
  const result = loadConfig({
    AUTH: 'off',
    SHUTDOWN_TIMEOUT_MS: '1000',
    KEEP_ALIVE_TIMEOUT_MS: '5000',
    HEADERS_TIMEOUT_MS: '60000',
    REQUEST_TIMEOUT_MS: '30000',
    REDIS_COMMAND_TIMEOUT_MS: '20',
  });
  assert.ok(!result.ok);
  const problems = result.problems.join('\n');
  assert.match(problems, /^SHUTDOWN_TIMEOUT_MS: 1000 is shorter than KEEP_ALIVE_TIMEOUT_MS \(5000\)/m);
  assert.match(problems, /^HEADERS_TIMEOUT_MS: 60000 is above REQUEST_TIMEOUT_MS \(30000\)/m);
  assert.match(problems, /^REDIS_COMMAND_TIMEOUT_MS: 20 is below 100/m);
  // At the edges, and the defaults: they work.
  assert.ok(loadConfig({ AUTH: 'off', SHUTDOWN_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '30000', REDIS_COMMAND_TIMEOUT_MS: '100' }).ok);
  assert.ok(loadConfig({ AUTH: 'off' }).ok);
});
