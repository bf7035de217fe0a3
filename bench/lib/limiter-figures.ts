import { Redis } from 'ioredis';
import { createRedisClient, createRedisLimiter, minuteAndDay, monthWindow, type Policy } from '@animal-store/gateway';

export interface LimiterFigures {
  /** With `concurrency` decisions in flight: enough for full batches, several calls in flight. */
  readonly decisionsPerSecond: number;
  readonly concurrency: number;
  /** With 64 in flight (the figure of earlier runs): one batch at a time, bound by its round trip. */
  readonly oneBatchInFlight?: { readonly concurrency: number; readonly decisionsPerSecond: number };
  readonly seconds: number;
  /**
   * MEMORY USAGE of one account's counters, in bytes; `typicalWithMonth` is the steady client on a
   * plan with a monthly quota too (absent in runs before it was measured).
   */
  readonly memory: { readonly oneRequest: number; readonly typical: number; readonly worst: number; readonly typicalWithMonth?: number };
}

const POLICY = minuteAndDay('bench', 1_000_000_000, 1_000_000_000);
/** The same with a monthly quota, whose counter is one more window of the account's state. */
const WITH_MONTH: Policy = { ...POLICY, windows: [...POLICY.windows, monthWindow(1_000_000_000)] };

/**
 * Decisions per second from one process against `redisUrl`, round robin over 1,000 accounts:
 * with 512 in flight (batches of 128, four calls at a time: the limiter's capacity) and with 64
 * (one batch at a time: bound by its round trip). And the Redis memory an account takes.
 */
export async function measureLimiter(redisUrl: string, seconds: number): Promise<LimiterFigures> {
  const client = createRedisClient(redisUrl, { commandTimeoutMs: 1000 });
  const admin = new Redis(redisUrl);
  try {
    while (
      !(await client.ping().then(
        () => true,
        () => false,
      ))
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
    const limiter = createRedisLimiter(client, { prefix: 'bench' });
    /** Decisions made in `forSeconds`, `concurrency` in flight, round robin over 1,000 accounts. */
    const decide = async (concurrency: number, forSeconds: number): Promise<number> => {
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
    await decide(64, Math.min(2, seconds)); // warm-up: JIT, script cache, the accounts' state
    const concurrency = 512;
    const decisionsPerSecond = (await decide(concurrency, seconds)) / seconds;
    const oneBatchInFlight = { concurrency: 64, decisionsPerSecond: (await decide(64, seconds)) / seconds };

    // Memory: accounts replayed through the script with an injected clock.
    const replay = async (subject: string, times: number[], policy = POLICY) => {
      let now = 0;
      const timed = createRedisLimiter(client, { prefix: 'mem', now: () => now });
      for (const t of times) {
        now = t;
        await timed.check({ subject, keyId: undefined, policy });
      }
      return Number(await admin.memory('USAGE', `mem:{${subject}}:rl`));
    };
    const start = Date.UTC(2030, 0, 1, 12);
    const oneRequest = await replay('one', [start]);
    // Typical: a steady client, a request every 5 s for an hour (12 minute buckets, 3 day buckets in use).
    const steady = Array.from({ length: 720 }, (_, i) => start + i * 5_000);
    const typical = await replay('typical', steady);
    const typicalWithMonth = await replay('typical-month', steady, WITH_MONTH);
    // Worst: a request in every bucket of both windows (61 + 61 counters).
    const dayBuckets = Array.from({ length: 60 }, (_, i) => start + i * 1_440_000);
    const last = dayBuckets.at(-1) as number;
    const worst = await replay('worst', [...dayBuckets, ...Array.from({ length: 61 }, (_, i) => last + 1 + i * 1000)]);
    return { decisionsPerSecond, concurrency, oneBatchInFlight, seconds, memory: { oneRequest, typical, worst, typicalWithMonth } };
  } finally {
    admin.disconnect();
    await client.close();
  }
}
