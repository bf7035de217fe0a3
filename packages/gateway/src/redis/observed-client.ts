import { publishRedisCommand, publishRedisHealth } from '../events/index.js';
import type { RedisClient } from './redis-client-api.js';

/**
 * `client` with each command published (`redis command`: its duration, whether it answered) and
 * each change of health (`redis health`: degraded at the first failure after answers, recovered
 * at the first answer after failures). The parts that use Redis stay unaware of who listens.
 *
 * A client connects in the background, and what is asked of it meanwhile fails at once. Those
 * failures are not an outage: until the first answer, a failure within `startGraceMs` of the
 * client's creation changes no health, so a normal start logs no "Redis does not answer" (and no
 * "answers again" after it). A Redis still unreachable past the grace is reported as usual.
 */
export function observeRedis(client: RedisClient, startGraceMs = 2000): RedisClient {
  let up: boolean | undefined;
  const createdAt = performance.now();
  function observed<A extends unknown[], R>(command: string, call: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return (...args) => {
      const startedAt = performance.now();
      return call(...args).then(
        (result) => {
          if (publishRedisCommand.active) publishRedisCommand({ command, durationMs: performance.now() - startedAt, ok: true });
          if (up !== true) {
            if (up === false) publishRedisHealth({ up: true });
            up = true;
          }
          return result;
        },
        (error: unknown) => {
          if (publishRedisCommand.active) publishRedisCommand({ command, durationMs: performance.now() - startedAt, ok: false });
          const starting = up === undefined && startedAt - createdAt < startGraceMs;
          if (up !== false && !starting) {
            up = false;
            publishRedisHealth({ up: false, error });
          }
          throw error;
        },
      );
    };
  }
  return {
    sIsMember: observed('sismember', (key: string, member: string) => client.sIsMember(key, member)),
    sMisMember: observed('smismember', (key: string, members: readonly string[]) => client.sMisMember(key, members)),
    sAdd: observed('sadd', (key: string, member: string) => client.sAdd(key, member)),
    sMembers: observed('sscan', (key: string) => client.sMembers(key)),
    hGet: observed('hget', (key: string, field: string) => client.hGet(key, field)),
    hGetAll: observed('hgetall', (key: string) => client.hGetAll(key)),
    hSet: observed('hset', (key: string, fields: Readonly<Record<string, string>>) => client.hSet(key, fields)),
    hIncrBy: observed('hincrby', (key: string, field: string, by: number) => client.hIncrBy(key, field, by)),
    hDel: observed('hdel', (key: string, fields: readonly string[]) => client.hDel(key, fields)),
    hScan: observed('hscan', (key: string, cursor: string, count: number, match?: string) => client.hScan(key, cursor, count, match)),
    pExpire: observed('pexpire', (key: string, ms: number) => client.pExpire(key, ms)),
    ping: observed('ping', () => client.ping()),
    publish: observed('publish', (channel: string, message: string) => client.publish(channel, message)),
    subscribe: (channel, listener, onSubscribed, onLost) => client.subscribe(channel, listener, onSubscribed, onLost),
    onReady: (listener) => client.onReady(listener),
    warm: () => client.warm(),
    defineScript: (name, lua, options) => observed(name, client.defineScript(name, lua, options)),
    shardOf: (key) => client.shardOf(key),
    close: () => client.close(),
  };
}
