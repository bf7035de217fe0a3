import calculateSlot from 'cluster-key-slot';
import { Cluster, Redis } from 'ioredis';
import { createCommandBudget } from './command-budget.js';
import { createFunctions } from './redis-functions.js';
import type { RedisClient, ScriptArgument } from './redis-client-api.js';
import { rethrowScriptError } from './script-error.js';

export interface RedisClientOptions {
  /**
   * The hard deadline: longest a command written to Redis is waited for; past it the caller's
   * fallback answers. A reply later than usual is not an outage (a cold start or a busy host
   * delays a healthy Redis by hundreds of ms), so this is hundreds of ms, not tens.
   * Measured from the write, and a reply that arrived in time is used even when a busy event loop
   * reads it late (see `command-budget.ts`).
   */
  readonly commandTimeoutMs: number;
  /** `url` is one node of a Redis Cluster; the others are discovered from it. */
  readonly cluster?: boolean;
}

/** The shortest wait for a reply before its connection is given up as stuck. */
const STUCK_MIN_MS = 1000;

/** Members asked for per SSCAN page: about 20 kB of ids, well under a millisecond of Redis. */
const SCAN_PAGE = 1000;

/**
 * An ioredis client tuned for the request path: no offline queue (a command while disconnected
 * fails at once instead of replaying stale work later), a short command budget of its own (not
 * ioredis `commandTimeout`, whose timer counts this process's queueing against Redis), one retry,
 * and reconnection in the background.
 */
export function createRedisClient(url: string, options: RedisClientOptions): RedisClient {
  const retry = (attempt: number) => Math.min(attempt * 100, 2000);
  // A command whose reply never came is not sent again after a reconnection: the gateway answered
  // without it long ago, and a rate-limit call replayed then would charge for nothing.
  const redisOptions = { maxRetriesPerRequest: 1, autoResendUnfulfilledCommands: false };
  let redis: Redis | Cluster;
  // A reply twice the deadline late (at least 1 s): the connection is dropped and made again, and
  // the commands waiting in it fail (none is sent again, see above; each was given up already).
  const within = createCommandBudget(options.commandTimeoutMs, {
    afterMs: Math.max(STUCK_MIN_MS, options.commandTimeoutMs * 2),
    onStuck: () => {
      if (redis.status === 'ready') redis.disconnect(true);
    },
  });
  if (options.cluster === true) {
    // A Cluster takes nodes, not a URL: what the URL says of the connection (user, password,
    // TLS) must be given to every node the seed leads to.
    const seed = new URL(url);
    const credentials = {
      ...(seed.username === '' ? {} : { username: decodeURIComponent(seed.username) }),
      ...(seed.password === '' ? {} : { password: decodeURIComponent(seed.password) }),
    };
    redis = new Cluster([{ host: seed.hostname, port: Number(seed.port || 6379) }], {
      enableOfflineQueue: false,
      clusterRetryStrategy: retry,
      redisOptions: { ...redisOptions, ...credentials, ...(seed.protocol === 'rediss:' ? { tls: {} } : {}) },
    });
  } else {
    redis = new Redis(url, { ...redisOptions, enableOfflineQueue: false, retryStrategy: retry });
  }
  const subscribers: (Redis | Cluster)[] = [];
  /** Every script defined, to load on each connection before it is used (`warm`). */
  const scripts: string[] = [];
  /** The connections the request path uses: each master of a cluster. */
  const masters = () => (redis instanceof Cluster ? redis.nodes('master') : [redis]);
  const functions = createFunctions(masters, within);
  // Without a listener an 'error' event would end the process; failures surface per command.
  redis.on('error', () => {});
  return {
    async sIsMember(key, member) {
      return (await within(redis.sismember(key, member))) === 1;
    },
    async sMisMember(key, members) {
      return (await within(redis.smismember(key, ...members))).map((found) => found === 1);
    },
    sAdd: (key, member) => within(redis.sadd(key, member)),
    async sMembers(key) {
      const members: string[] = [];
      let cursor = '0';
      do {
        const [next, page] = await within(redis.sscan(key, cursor, 'COUNT', SCAN_PAGE));
        for (const member of page) members.push(member);
        cursor = next;
      } while (cursor !== '0');
      return members;
    },
    async hGet(key, field) {
      return (await within(redis.hget(key, field))) ?? undefined;
    },
    hGetAll: (key) => within(redis.hgetall(key)),
    async hSet(key, fields) {
      await within(redis.hset(key, fields));
    },
    hIncrBy: (key, field, by) => within(redis.hincrby(key, field, by)),
    hDel: (key, fields) => within(redis.hdel(key, ...fields)),
    async hScan(key, cursor, count, match) {
      const [next, flat] = await within(
        match === undefined ? redis.hscan(key, cursor, 'COUNT', count) : redis.hscan(key, cursor, 'MATCH', match, 'COUNT', count),
      );
      const entries: [string, string][] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) entries.push([flat[i] as string, flat[i + 1] as string]);
      return { next, entries };
    },
    async pExpire(key, ms) {
      await within(redis.pexpire(key, ms));
    },
    async ping() {
      await within(redis.ping());
    },
    publish: (channel, message) => within(redis.publish(channel, message)),
    subscribe(channel, listener, onSubscribed, onLost) {
      // Not on the request path: this connection may queue its SUBSCRIBE until it is connected.
      const subscriber = redis instanceof Cluster ? redis.duplicate(undefined, { enableOfflineQueue: true }) : redis.duplicate({ enableOfflineQueue: true });
      subscribers.push(subscriber);
      subscriber.on('error', () => {});
      subscriber.on('message', (from: string, message: string) => {
        if (from === channel) listener(message);
      });
      const subscribe = () =>
        void subscriber.subscribe(channel).then(
          () => onSubscribed?.(),
          () => {},
        );
      // After a reconnection ioredis subscribes again by itself; 'ready' tells when it has.
      subscriber.on('ready', subscribe);
      if (onLost !== undefined) subscriber.on('close', onLost);
    },
    onReady(listener) {
      redis.on('ready', listener);
    },
    async warm() {
      await Promise.all(
        masters().map(async (connection) => {
          for (const lua of scripts) await within(connection.script('LOAD', lua));
          await within(connection.ping());
        }),
      );
      await functions.load();
    },
    defineScript(name, lua, options) {
      // No numberOfKeys: each call gives its own count first.
      redis.defineCommand(name, { lua });
      scripts.push(lua);
      const library = options?.library;
      // ioredis defines each command twice: `name`, and `nameBuffer`, whose strings stay bytes.
      const command = (redis as unknown as Record<string, (...args: ScriptArgument[]) => Promise<unknown>>)[
        options?.binary === true ? `${name}Buffer` : name
      ] as (...args: ScriptArgument[]) => Promise<unknown>;
      const script = (keys: readonly string[], args: readonly ScriptArgument[]) =>
        within(command.call(redis, keys.length, ...keys, ...args)).catch(rethrowScriptError);
      if (library === undefined) return script;
      const call = options?.binary === true ? redis.callBuffer.bind(redis) : redis.call.bind(redis);
      return functions.define(library, (keys, args) => within(call('FCALL', library.fn, keys.length, ...keys, ...args)), script);
    },
    shardOf: options.cluster === true ? (key) => calculateSlot(key) : () => 0,
    async close() {
      for (const subscriber of subscribers) subscriber.disconnect();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
