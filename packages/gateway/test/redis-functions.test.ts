import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, startRedis, type RedisServer } from '@animal-store/testkit';
import { connectedRedisClient } from './support/index.js';
import type { Policy } from '../src/ratelimit/index.js';
import { createRedisLimiter, RATE_LIMIT_LIBRARY } from '../src/ratelimit/redis/index.js';
import { luaCode, ScriptError, type RedisClient } from '../src/redis/index.js';

// The rate-limit code runs as a library of Redis Functions where Redis has them (made once, not
// at every call), and as a script where it has not: the same decisions either way.
const POLICY: Policy = { name: 'fn', windows: [{ name: 'minute', limit: 60, windowMs: 60_000, buckets: 60 }], ban: undefined };
const NOW = 1_800_000_000_000;

/** Script calls of each kind Redis ran so far. */
async function calls(admin: Redis): Promise<{ fcall: number; evalsha: number; eval: number }> {
  const stats = await admin.info('commandstats');
  const of = (name: string) => Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
  return { fcall: of('fcall'), evalsha: of('evalsha'), eval: of('eval') };
}

/** `count` requests of one account, 10 at a time (batched into one call each): how many were admitted. */
async function admitted(client: RedisClient, subject: string, count: number, prefix = 'fn'): Promise<number> {
  const limiter = createRedisLimiter(client, { prefix, now: () => NOW });
  let yes = 0;
  for (let sent = 0; sent < count; sent += 10) {
    const decided = await Promise.all(Array.from({ length: Math.min(10, count - sent) }, () => limiter.check({ subject, keyId: subject, policy: POLICY })));
    yes += decided.filter((d) => d.allowed).length;
  }
  return yes;
}

describe('the rate-limit code as Redis Functions', { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  let admin: Redis;
  const clients: RedisClient[] = [];
  const client = async (url = redis.url) => {
    const made = await connectedRedisClient(url, 5000);
    clients.push(made);
    return made;
  };

  before(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
  });
  after(async () => {
    for (const made of clients) await made.close();
    admin?.disconnect();
    await redis?.close();
  });

  test('two instances load one library of this version and call it (FCALL): exact, and no script runs', async () => {
    const [a, b] = [await client(), await client()];
    createRedisLimiter(a, { prefix: 'fn' });
    createRedisLimiter(b, { prefix: 'fn' });
    await a.warm();
    await b.warm();
    const libraries = (await admin.function('LIST')) as unknown[][];
    assert.deepEqual(
      libraries.map((library) => library[1]),
      [RATE_LIMIT_LIBRARY.name],
    );
    const before = await calls(admin);
    const [first, second] = await Promise.all([admitted(a, 'shared', 50), admitted(b, 'shared', 50)]);
    const after = await calls(admin);
    assert.equal(first + second, 60, `${first} + ${second} admitted of a limit of 60`);
    assert.ok(after.fcall - before.fcall >= 10, `${after.fcall - before.fcall} FCALLs`);
    assert.deepEqual([after.evalsha - before.evalsha, after.eval - before.eval], [0, 0]);
  });

  test('limiters that share a client load their library once', async () => {
    const made = await client();
    createRedisLimiter(made, { prefix: 'once' });
    createRedisLimiter(made, { prefix: 'once-more' });
    const loads = async () => Number(/^cmdstat_function\|load:calls=(\d+)/m.exec(await admin.info('commandstats'))?.[1] ?? 0);
    const before = await loads();
    await made.warm();
    assert.equal((await loads()) - before, 1);
  });

  test('FUNCTION FLUSH mid-traffic: the library is loaded again, every request decided, exactly', async () => {
    const made = await client();
    createRedisLimiter(made, { prefix: 'flush' });
    await made.warm();
    const early = await admitted(made, 'flushed', 30, 'flush');
    await admin.function('FLUSH');
    const late = await admitted(made, 'flushed', 40, 'flush');
    assert.deepEqual([early, late], [30, 30]);
    assert.equal(((await admin.function('LIST', 'LIBRARYNAME', RATE_LIMIT_LIBRARY.name)) as unknown[]).length, 1);
  });

  for (const warmed of [true, false]) {
    test(`a Redis user that may not load functions (an ACL; or Redis before 7): the script, exactly (${warmed ? 'warmed' : 'found by the first call'})`, async () => {
      const user = `nofn${warmed ? 'w' : 'c'}`;
      await admin.call('ACL', 'SETUSER', user, 'on', '>secret', '~*', '&*', '+@all', '-function', '-fcall', '-fcall_ro');
      const url = new URL(redis.url);
      url.username = user;
      url.password = 'secret';
      const made = await client(url.toString());
      createRedisLimiter(made, { prefix: user });
      if (warmed) await made.warm();
      const before = await calls(admin);
      assert.equal(await admitted(made, 'scripted', 80, user), 60);
      const after = await calls(admin);
      assert.equal(after.fcall - before.fcall, 0);
      assert.ok(after.evalsha + after.eval - before.evalsha - before.eval >= 8, 'every call ran the script');
    });
  }

  test('a library that cannot load for a while (Redis over its memory): those calls fail, and the next load succeeds', async () => {
    const made = await client();
    createRedisLimiter(made, { prefix: 'oom' });
    await made.warm();
    await admin.function('FLUSH');
    await admin.config('SET', 'maxmemory', '1');
    try {
      await assert.rejects(admitted(made, 'full', 1, 'oom'), /^(?:ReplyError: )?OOM/);
    } finally {
      await admin.config('SET', 'maxmemory', '0');
    }
    const before = await calls(admin);
    assert.equal(await admitted(made, 'full', 70, 'oom'), 60);
    const after = await calls(admin);
    assert.deepEqual([after.evalsha - before.evalsha, after.eval - before.eval], [0, 0], 'functions still: the OOM did not turn them off');
  });

  test("a Lua error in a function is the script's error (nothing charged), as with EVALSHA", async () => {
    const made = await client();
    const faulty = luaCode('faulty', 'local function run(keys, args) return nil + tonumber(args[1]) end');
    const run = made.defineScript('faulty', faulty.script, { library: faulty.library });
    await made.warm();
    const before = await calls(admin);
    await assert.rejects(run([], ['1']), (error: unknown) => error instanceof ScriptError && /user_function/.test(error.message));
    assert.equal((await calls(admin)).fcall - before.fcall, 1, 'sent once: a Lua error is not sent again');
  });
});
