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
