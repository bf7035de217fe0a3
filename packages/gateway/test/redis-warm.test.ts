import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, type RedisServer, waitForReady } from '@animal-store/testkit';
import { RATE_LIMIT_LIBRARY, RATE_LIMIT_SCRIPT } from '../src/ratelimit/redis/index.js';
import { type LimitedStack, type RunningGateway, startGateway, startLimitedStack } from './support/index.js';

// Issue 19, warm before ready: /readyz says ready only once the rate-limit script is loaded on
// the connection (and run once), so the first burst pays no NOSCRIPT round trip and meets warm
// connections; again after Redis restarts empty.
describe('a gateway says ready only with its Redis connection warm', { skip: redisSkipReason() }, () => {
  const sha = createHash('sha1').update(RATE_LIMIT_SCRIPT).digest('hex');
  let stack: LimitedStack;
  let redis: RedisServer;
  let admin: Redis;
  let gateway: RunningGateway;

  before(async () => {
    stack = await startLimitedStack();
    redis = stack.redis as RedisServer;
    admin = new Redis(redis.url);
    admin.on('error', () => {});
    gateway = await startGateway(stack.env);
  });
  after(async () => {
    await gateway?.close();
    admin?.disconnect();
    await stack?.close();
  });

  // Loaded both ways: as a library of Redis Functions (what the limiter calls, FCALL) and as a
  // script (EVALSHA, where Redis has no functions).
  const scriptLoaded = async () =>
    ((await admin.script('EXISTS', sha)) as number[])[0] === 1 &&
    ((await admin.function('LIST', 'LIBRARYNAME', RATE_LIMIT_LIBRARY.name)) as unknown[]).length === 1;
  // ioredis sends a script's first call on a connection as EVAL (which loads it), then EVALSHA.
  const scriptRuns = async () => {
    const stats = await admin.info('commandstats');
    return ['eval', 'evalsha', 'fcall'].reduce((sum, name) => sum + Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0), 0);
  };

  test('ready before any request: the script is loaded and has run once (Redis clock learnt)', async () => {
    await waitForReady(gateway.url);
    assert.equal(await scriptLoaded(), true, 'the rate-limit script is loaded before the first request');
    assert.ok((await scriptRuns()) >= 1, 'the limiter ran it once while warming');
  });

  test('Redis restarted empty: not ready until the script is loaded again', async () => {
    await redis.stop('SIGKILL');
    await redis.restart();
    await admin.ping().catch(() => {});
    await waitForReady(gateway.url);
    assert.equal(await scriptLoaded(), true, 'loaded again after the restart, before any request');
  });
});
