import { Redis } from 'ioredis';
import { minuteAndDay } from '../../packages/gateway/src/ratelimit/index.js';
import { createRedisLimiter } from '../../packages/gateway/src/ratelimit/redis-limiter.js';
import { createRedisClient } from '../../packages/gateway/src/redis/index.js';

export interface LimiterFigures {
  readonly decisionsPerSecond: number;
  readonly concurrency: number;
  readonly seconds: number;
  /** MEMORY USAGE of one account's counters, in bytes. */
  readonly memory: { readonly oneRequest: number; readonly typical: number; readonly worst: number };
}

const POLICY = minuteAndDay('bench', 1_000_000_000, 1_000_000_000);

/**
 * Decisions per second from one process against `redisUrl` (one script call each, `concurrency`
 * in flight, over 1,000 accounts), and the Redis memory an account's counters take.
 */
export async function measureLimiter(redisUrl: string, seconds: number): Promise<LimiterFigures> {
  const client = createRedisClient(redisUrl, { commandTimeoutMs: 1000 });
  const admin = new Redis(redisUrl);
  try {
    while (!(await client.ping().then(() => true, () => false))) await new Promise((resolve) => setTimeout(resolve, 20));
    const limiter = createRedisLimiter(client, { prefix: 'bench' });
    const concurrency = 64;
    /** Decisions made in `forSeconds`, `concurrency` in flight, round robin over 1,000 accounts. */
    const decide = async (forSeconds: number): Promise<number> => {
      let decisions = 0;
      const deadline = performance.now() + forSeconds * 1000;
      await Promise.all(
        Array.from({ length: concurrency }, async (_, worker) => {
          for (let i = worker; performance.now() < deadline; i += concurrency) {
            await limiter.check({ subject: `account-${i % 1000}`, keyId: `key-${i % 1000}`, policy: POLICY });
            decisions += 1;
          }
        }),
      );
      return decisions;
    };
    await decide(Math.min(2, seconds)); // warm-up: JIT, script cache, the accounts' hashes
    const decisionsPerSecond = (await decide(seconds)) / seconds;

    // Memory: accounts replayed through the script with an injected clock.
    const replay = async (subject: string, times: number[]) => {
      let now = 0;
      const timed = createRedisLimiter(client, { prefix: 'mem', now: () => now });
      for (const t of times) {
        now = t;
        await timed.check({ subject, keyId: undefined, policy: POLICY });
      }
      return Number(await admin.memory('USAGE', `mem:{${subject}}:rl`));
    };
    const start = Date.UTC(2030, 0, 1, 12);
    const oneRequest = await replay('one', [start]);
    // Typical: a steady client, a request every 5 s for an hour (12 minute buckets, 3 day buckets in use).
    const typical = await replay('typical', Array.from({ length: 720 }, (_, i) => start + i * 5_000));
    // Worst: a request in every bucket of both windows (61 + 61 counters).
    const dayBuckets = Array.from({ length: 60 }, (_, i) => start + i * 1_440_000);
    const last = dayBuckets.at(-1) as number;
    const worst = await replay('worst', [...dayBuckets, ...Array.from({ length: 61 }, (_, i) => last + 1 + i * 1000)]);
    return { decisionsPerSecond, concurrency, seconds, memory: { oneRequest, typical, worst } };
  } finally {
    admin.disconnect();
    await client.close();
  }
}
