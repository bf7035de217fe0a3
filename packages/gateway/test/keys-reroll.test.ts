import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, startRedis, temporaryDir, type RedisServer } from '@animal-store/testkit';
import { createPendingRevocations } from '../src/auth/pending-revocations.js';
import { redisKeyNames } from '../src/redis/index.js';
import {
  connectedRedisClient,
  keysCli as keys,
  PROXY_TEST_PATHS,
  startGateway,
  startRecordingUpstream,
  writeDocument,
  type RecordingUpstream,
} from './support/index.js';

// Issue 32: `keys reroll <jti> --grace`, Unkey's rerollKey: a new key for the same account and
// plan, the old one refused once the grace period is over. A key is a JWT, whose expiry cannot
// change: the deny-list's date ends it, in the file, and in Redis through the gateways.

const names = redisKeyNames('gw');
const jtiOf = (key: string) => (JSON.parse(Buffer.from(key.split('.')[1] as string, 'base64url').toString()) as { jti: string; sub: string; plan: string }).jti;

describe('keys reroll', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  let direct: Redis;
  let upstream: RecordingUpstream;
  let env: Record<string, string>;
  before(async () => {
    redis = await startRedis();
    direct = new Redis(redis.url);
    upstream = await startRecordingUpstream();
    env = { KEYS_DIR: join(temporaryDir('gw-reroll-'), 'keys'), REDIS_URL: redis.url };
    assert.equal((await keys(env, 'init')).status, 0);
  });
  after(async () => {
    direct?.disconnect();
    await upstream?.close();
    await redis?.close();
  });

  test('prints a new key of the same account and plan; the old one is accepted until its grace is over, then refused', async () => {
    const old = (await keys(env, 'issue', '--plan', 'business', '--sub', 'rolling')).stdout;
    const before = Date.now();
    const rerolled = await keys(env, 'reroll', jtiOf(old), '--grace', '1h');
    assert.equal(rerolled.status, 0, rerolled.stderr);
    const fresh = rerolled.stdout;
    const claims = JSON.parse(Buffer.from(fresh.split('.')[1] as string, 'base64url').toString()) as { sub: string; plan: string };
    assert.deepEqual([claims.sub, claims.plan], ['rolling', 'business']);
    assert.match(
      rerolled.stderr,
      new RegExp(
        `^rerolled ${jtiOf(old)} as ${jtiOf(fresh)} \\(account rolling, plan business\\); ${jtiOf(old)} is refused from \\S+ in .*revoked\\.json and in Redis`,
      ),
    );
    const from = Date.parse(
      (JSON.parse(readFileSync(join(env.KEYS_DIR as string, 'public', 'revoked.json'), 'utf8')) as { revoked: Record<string, string> }).revoked[
        jtiOf(old)
      ] as string,
    );
    assert.ok(from >= before + 3_600_000 && from <= Date.now() + 3_600_000);
    assert.equal(Number(await direct.hget(names.revokedLater, jtiOf(old))), from, 'pending in Redis, for gateways that read Redis alone');
    assert.equal(await direct.sismember(names.revoked, jtiOf(old)), 0, 'not revoked there yet');
    assert.match((await keys(env, 'list')).stdout, new RegExp(`${jtiOf(old)} .* from \\S+ +yes`), 'listed as revoked from that date, and still accepted');

    // A gateway that reads the keyring's file: its clock on either side of the date.
    let now = from - 1000;
    const gateway = await startGateway(
      {
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
        JWKS_FILE: join(env.KEYS_DIR as string, 'public', 'jwks.json'),
        RATE_LIMITS: 'on',
      },
      () => now,
    );
    try {
      const call = async (key: string) => (await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${key}` } })).status;
      assert.deepEqual([await call(old), await call(fresh)], [200, 200], 'both work during the grace');
      now = from;
      assert.deepEqual([await call(old), await call(fresh)], [401, 200], 'the old key is refused once it is over');
    } finally {
      await gateway.close();
    }
  });

  test('--grace 0 refuses the old key at once, in Redis too; bad arguments are usage errors', async () => {
    const old = (await keys(env, 'issue', '--plan', 'pro', '--sub', 'at-once')).stdout;
    const rerolled = await keys(env, 'reroll', jtiOf(old), '--grace', '0');
    assert.equal(rerolled.status, 0, rerolled.stderr);
    assert.equal(await direct.sismember(names.revoked, jtiOf(old)), 1);
    for (const args of [
      ['reroll', jtiOf(old)],
      ['reroll', jtiOf(old), '--grace', 'soon'],
      ['reroll', '--grace', '1h'],
    ]) {
      const result = await keys(env, ...args);
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
    }
    assert.equal((await keys(env, 'reroll', 'never-issued', '--grace', '1h')).status, 1);
  });

  test('gateways move a pending revocation into the deny-list when its date comes, and tell every copy', async () => {
    const client = await connectedRedisClient(redis.url, 2000);
    // Keys of their own, apart from what the CLI wrote above.
    const names = redisKeyNames('pending');
    let now = Date.UTC(2026, 10, 28, 12);
    const moved: string[] = [];
    const pending = createPendingRevocations(client, {
      key: names.revoked,
      later: names.revokedLater,
      channel: names.revokedChannel,
      now: () => now,
      onRevoked: (id) => moved.push(id),
    });
    const listener = direct.duplicate();
    const published: string[] = [];
    await listener.subscribe(names.revokedChannel);
    listener.on('message', (_channel: string, message: string) => published.push(message));
    try {
      await direct.hset(names.revokedLater, { 'due-soon': String(now + 60_000), 'due-later': String(now + 86_400_000) });
      await pending.refresh();
      assert.deepEqual([moved, pending.due('due-soon'), await direct.sismember(names.revoked, 'due-soon')], [[], false, 0]);
      now += 60_000;
      assert.equal(pending.due('due-soon'), true, "the copy's answer while Redis is away");
      await pending.refresh();
      assert.deepEqual(moved, ['due-soon']);
      assert.equal(await direct.sismember(names.revoked, 'due-soon'), 1);
      assert.deepEqual(await direct.hkeys(names.revokedLater), ['due-later'], 'moved once, by the first to see it');
      const deadline = Date.now() + 5000;
      while (published.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(published, ['due-soon'], "published: every gateway's copy learns it at once");
    } finally {
      listener.disconnect();
      pending.close();
      await client.close();
    }
  });
});
