import type { LuaLibrary } from './lua-library.js';

/** An argument of a script call (ARGV): a Buffer is sent as its bytes. */
export type ScriptArgument = string | number | Buffer;

/** All the gateway needs from a Redis client; redis-client.ts, the one place ioredis is imported, implements it. */
export interface RedisClient {
  sIsMember(key: string, member: string): Promise<boolean>;
  /** For each member, whether the set holds it (one command for many). */
  sMisMember(key: string, members: readonly string[]): Promise<boolean[]>;
  sAdd(key: string, member: string): Promise<number>;
  /**
   * Every member of a set, read in `SSCAN` pages: each page is one short command within the
   * command budget, however large the set (one `SMEMBERS` of 200,000 ids would not fit it, and
   * would hold Redis for its whole length). A member added or removed meanwhile may be missed.
   */
  sMembers(key: string): Promise<string[]>;
  /** A field of a hash; `undefined` when the hash or the field is absent. */
  hGet(key: string, field: string): Promise<string | undefined>;
  /** Every field of a hash (`{}` when absent): for small hashes only (one command, whole). */
  hGetAll(key: string): Promise<Record<string, string>>;
  /** Sets the fields of a hash. */
  hSet(key: string, fields: Readonly<Record<string, string>>): Promise<void>;
  /** Adds `by` to a field of a hash; resolves with the new value. */
  hIncrBy(key: string, field: string, by: number): Promise<number>;
  hDel(key: string, fields: readonly string[]): Promise<number>;
  /**
   * One `HSCAN` page of a hash, from `cursor` ('0' to start): its fields and values, and the
   * cursor of the next page ('0' when the scan is over). `match` is a glob over field names.
   */
  hScan(key: string, cursor: string, count: number, match?: string): Promise<{ readonly next: string; readonly entries: readonly [string, string][] }>;
  /** Sets a key's time to live, in milliseconds. */
  pExpire(key: string, ms: number): Promise<void>;
  ping(): Promise<void>;
  /** Sends `message` to the subscribers of `channel`; resolves with how many received it. */
  publish(channel: string, message: string): Promise<number>;
  /**
   * Calls `listener` with each message published on `channel`, over a connection of its own
   * (subscribed again after each reconnection). `onSubscribed` is called each time the
   * subscription is in place, `onLost` each time its connection closes (messages published until
   * it is in place again are not received).
   */
  subscribe(channel: string, listener: (message: string) => void, onSubscribed?: () => void, onLost?: () => void): void;
  /** Calls `listener` each time the connection becomes ready (the first time, and after each reconnection). */
  onReady(listener: () => void): void;
  /**
   * A first round trip on every connection the request path uses (each master of a cluster):
   * every script defined so far loaded (SCRIPT LOAD), then PING, and every library (FUNCTION LOAD,
   * where Redis has functions). Resolves once all answered.
   * ioredis still sends a script's first call on each connection as EVAL (it loads the script
   * again as it runs): a caller's own first run of the script takes that one out of the way.
   */
  warm(): Promise<void>;
  /**
   * Registers a Lua script (sent by SHA, reloaded by ioredis on NOSCRIPT, e.g. after SCRIPT FLUSH)
   * and returns the function that runs it, with any number of keys. `library`: the same code as a
   * library of Redis Functions (`lua-library.ts`), loaded by `warm` (or by the first call) and
   * called with FCALL where Redis has functions, the script elsewhere (`redis-functions.ts`).
   * `binary`: a string reply comes as its bytes (a Buffer), not decoded as UTF-8.
   */
  defineScript(
    name: string,
    lua: string,
    options?: { readonly library?: LuaLibrary; readonly binary?: boolean },
  ): (keys: readonly string[], args: readonly ScriptArgument[]) => Promise<unknown>;
  /**
   * Which keys one command may touch together: keys of the same shard can. On a cluster, the
   * hash slot; on a single Redis, 0 for every key.
   */
  shardOf(key: string): number;
  close(): Promise<void>;
}
