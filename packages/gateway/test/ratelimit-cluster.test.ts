import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Cluster } from 'ioredis';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  commandSkipReason,
  burst,
  freePort,
  redisSkipReason,
  selfSignedCertificate,
  startRedis,
  startRedisCluster,
  startService,
  temporaryDir,
  TEST_ENV,
  type RedisCluster,
} from '@animal-store/testkit';
import {
  createTestKeyring,
  keysCli,
  type LimitedStack,
  PROXY_TEST_PATHS,
  type RunningGateway,
  startGateway,
  startLimitedStack,
  startRecordingUpstream,
  type TestKeyring,
  writeDocument,
} from './support/index.js';

describe('rate limits on a Redis Cluster of three masters', { skip: redisSkipReason() }, () => {
  let cluster: RedisCluster;
  let stack: LimitedStack;
  let keyring: TestKeyring;
  const gateways: RunningGateway[] = [];

  before(async () => {
    cluster = await startRedisCluster(3);
    stack = await startLimitedStack({ redis: false });
    keyring = stack.keyring;
    const env = {
      ...stack.env,
      REDIS_URL: cluster.seedUrl,
      REDIS_CLUSTER: 'true',
      REDIS_COMMAND_TIMEOUT_MS: '1000',
      RATE_LIMIT_ON_REDIS_FAILURE: 'closed',
    };
    gateways.push(await startGateway(env), await startGateway(env));
    // Cluster clients learn the slot map asynchronously: wait until a request is decided by Redis.
    const { token } = await keyring.issue({ plan: 'pro', sub: 'warm-up' });
    const deadline = Date.now() + 15_000;
    for (const gateway of gateways) {
      while ((await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } })).status !== 200) {
        assert.ok(Date.now() < deadline, 'the cluster client never became ready');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });
  after(async () => {
    for (const gateway of gateways) await gateway.close();
    await stack?.close();
    await cluster?.close();
  });

  test('500 parallel requests on fresh free keys, over two instances, admit exactly 60 each, with no CROSSSLOT', async () => {
    // Several accounts, so their hash tags land on different masters.
    for (const sub of ['alpha', 'bravo', 'charlie', 'delta']) {
      const { token } = await keyring.issue({ plan: 'free', sub });
      // The two instances in turn, each request on a connection of its own (the testkit's burst).
      const counts = await burst(
        gateways.map((gateway) => gateway.url),
        500,
        token,
      );
      assert.equal(counts[200] ?? 0, 60, sub);
      assert.equal(counts[429] ?? 0, 440, `${sub}: every other answer is a 429, none a 503 (CROSSSLOT would be one)`);
    }
  });

  test('keys revoke with REDIS_CLUSTER=true writes to the cluster: both instances refuse the key next', async () => {
    const { token, record } = await keyring.issue({ plan: 'pro', sub: 'revoked-on-cluster' });
    for (const gateway of gateways) assert.equal((await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
    // Named through a node that does not hold the deny-list's slot, so only a cluster client can write it.
    const client = new Cluster([{ host: '127.0.0.1', port: cluster.nodes[0]!.port }]);
    let elsewhere: number | undefined;
    try {
      const slot = await client.cluster('KEYSLOT', 'gw:revoked');
      const shards = (await client.cluster('SLOTS')) as unknown as [number, number, [string, number]][];
      const owner = shards.find(([from, to]) => slot >= from && slot <= to)?.[2]?.[1];
      elsewhere = cluster.nodes.find((node) => node.port !== owner)?.port;
    } finally {
      client.disconnect();
    }
    assert.ok(elsewhere !== undefined);
    const revoked = await keysCli({ KEYS_DIR: keyring.dir, REDIS_URL: `redis://127.0.0.1:${elsewhere}`, REDIS_CLUSTER: 'true' }, 'revoke', record.jti);
    assert.equal(revoked.status, 0, revoked.stderr);
    for (const gateway of gateways) assert.equal((await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } })).status, 401);
  });

  test('the accounts really are spread over the masters', async () => {
    const client = new Cluster([{ host: '127.0.0.1', port: cluster.nodes[0]!.port }]);
    try {
      const owners = new Set<string>();
      for (const sub of ['alpha', 'bravo', 'charlie', 'delta']) {
        const slot = await client.cluster('KEYSLOT', `gw:{${sub}}:rl`);
        const shards = (await client.cluster('SLOTS')) as unknown as [number, number, [string, number]][];
        const owner = shards.find(([from, to]) => slot >= from && slot <= to);
        owners.add(String(owner?.[2]?.[1]));
      }
      assert.ok(owners.size >= 2, `all accounts on one master: ${[...owners].join(',')}`);
    } finally {
      client.disconnect();
    }
  });
});

// rediss:// with a user: a managed cluster's usual URL. One master holding every slot, serving
// TLS only to the gateway (the plain port is for this test's own redis-cli), a self-signed
// certificate trusted the standard way (NODE_EXTRA_CA_CERTS), and an ACL user for the gateway.
describe(
  'a Redis Cluster over TLS with a username: rediss://user:password@…',
  { skip: redisSkipReason() || commandSkipReason('openssl', 'apt-get install openssl') },
  () => {
    test('limits and revocations go through the TLS connection as that user', async () => {
      const tls = selfSignedCertificate(temporaryDir('redis-tls-'));
      const tlsPort = await freePort();
      const node = await startRedis({
        args: [
          // A lone node knows no address of its own until it meets another: announce one.
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-announce-ip',
          '127.0.0.1',
          '--tls-port',
          String(tlsPort),
          '--tls-cluster',
          'yes',
          '--tls-cert-file',
          tls.certFile,
          '--tls-key-file',
          tls.keyFile,
          '--tls-ca-cert-file',
          tls.certFile,
          '--tls-auth-clients',
          'no',
          '--user',
          'gateway',
          'on',
          '>s3cret',
          '~*',
          '&*',
          '+@all',
        ],
      });
      const cli = (...args: string[]) => redisCli(node.port, ...args);
      const upstream = await startRecordingUpstream();
      const keyring = await createTestKeyring();
      try {
        await cli('cluster', 'addslotsrange', '0', '16383');
        for (const deadline = Date.now() + 10_000; !(await cli('cluster', 'info')).includes('cluster_state:ok');) {
          assert.ok(Date.now() < deadline, 'the one-node cluster never became ready');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const redisUrl = `rediss://gateway:s3cret@127.0.0.1:${tlsPort}`;
        const gateway = await startService({
          service: 'gateway',
          env: {
            PORT: '0',
            UPSTREAM_URL: upstream.url,
            OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
            JWKS_FILE: keyring.files.jwks,
            REDIS_URL: redisUrl,
            REDIS_CLUSTER: 'true',
            REDIS_COMMAND_TIMEOUT_MS: '1000',
            RATE_LIMIT_ON_REDIS_FAILURE: 'closed',
            NODE_EXTRA_CA_CERTS: tls.certFile,
          },
        });
        try {
          const { token, record } = await keyring.issue({ plan: 'free', sub: 'tls-account' });
          const call = () => fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } }).then((res) => res.status);
          for (const deadline = Date.now() + 15_000; (await call()) !== 200;) {
            assert.ok(Date.now() < deadline, `the gateway never decided through the TLS cluster:\n${gateway.output()}`);
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
          assert.match(await cli('client', 'list'), /user=gateway/, 'the gateway is connected as its ACL user');
          assert.notEqual(await cli('--scan', '--pattern', 'gw:*tls-account*'), '', 'the limit lives in the cluster');
          const revoked = await keysCli(
            { KEYS_DIR: keyring.dir, REDIS_URL: redisUrl, REDIS_CLUSTER: 'true', NODE_EXTRA_CA_CERTS: tls.certFile },
            'revoke',
            record.jti,
          );
          assert.equal(revoked.status, 0, revoked.stderr);
          assert.equal(await cli('sismember', 'gw:revoked', record.jti), '1');
        } finally {
          await gateway.stop();
        }
      } finally {
        await upstream.close();
        await node.close();
      }
    });
  },
);

async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(TEST_ENV.redisCliBin ?? 'redis-cli', ['-p', String(port), ...args], { timeout: 5_000 });
  return stdout.trim();
}
