import { after, before } from 'node:test';
import { startRedis, type RedisServer } from '@animal-store/testkit';
import { createRedisClient, type RedisClient } from '../../src/redis/index.js';

/**
 * The gateway's Redis client on `url`, once it answers a ping (it has no offline queue: a command
 * sent before it is connected fails). Throws after 10 s.
 */
export async function connectedRedisClient(url: string, commandTimeoutMs: number): Promise<RedisClient> {
  const client = createRedisClient(url, { commandTimeoutMs });
  const deadline = Date.now() + 10_000;
  while (
    !(await client.ping().then(
      () => true,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) {
      await client.close();
      throw new Error(`could not connect to Redis at ${url}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return client;
}

/**
 * A private redis-server and the gateway's client on it, for the `describe` block this is called
 * in: started in its `before`, stopped in its `after`. `client()` is the client once `before` ran.
 */
export function privateRedisClient(commandTimeoutMs = 1000): { client(): RedisClient } {
  let redis: RedisServer | undefined;
  let client: RedisClient | undefined;
  before(async () => {
    redis = await startRedis();
    client = await connectedRedisClient(redis.url, commandTimeoutMs);
  });
  after(async () => {
    await client?.close();
    await redis?.close();
  });
  return {
    client() {
      if (client === undefined) throw new Error('the Redis client is there once the block’s before hook ran');
      return client;
    },
  };
}
