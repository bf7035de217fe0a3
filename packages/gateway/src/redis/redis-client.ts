import { Redis } from 'ioredis';

/** All the gateway needs from a Redis client; the one place ioredis is imported implements it. */
export interface RedisClient {
  sIsMember(key: string, member: string): Promise<boolean>;
  sAdd(key: string, member: string): Promise<number>;
  sMembers(key: string): Promise<string[]>;
  ping(): Promise<void>;
  /**
   * Registers a Lua script (sent by SHA, reloaded by ioredis on NOSCRIPT, e.g. after SCRIPT FLUSH)
   * and returns the function that runs it.
   */
  defineScript(name: string, lua: string, numberOfKeys: number): (keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown>;
  close(): Promise<void>;
}

export interface RedisClientOptions {
  /** Longest a command may take; past it the caller's fallback answers. Tens of ms. */
  readonly commandTimeoutMs: number;
}

/**
 * An ioredis client tuned for the request path: no offline queue (a command while disconnected
 * fails at once instead of replaying stale work later), a short command timeout, one retry, and
 * reconnection in the background.
 */
export function createRedisClient(url: string, options: RedisClientOptions): RedisClient {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    commandTimeout: options.commandTimeoutMs,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  });
  // Without a listener an 'error' event would end the process; failures surface per command.
  redis.on('error', () => {});
  return {
    async sIsMember(key, member) {
      return (await redis.sismember(key, member)) === 1;
    },
    sAdd: (key, member) => redis.sadd(key, member),
    sMembers: (key) => redis.smembers(key),
    async ping() {
      await redis.ping();
    },
    defineScript(name, lua, numberOfKeys) {
      redis.defineCommand(name, { lua, numberOfKeys });
      const command = (redis as unknown as Record<string, (...args: (string | number)[]) => Promise<unknown>>)[name] as (...args: (string | number)[]) => Promise<unknown>;
      return (keys, args) => command.call(redis, ...keys, ...args);
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
