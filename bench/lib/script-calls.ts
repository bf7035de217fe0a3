import { Redis } from 'ioredis';

/**
 * The script calls an `INFO commandstats` reply counts: EVALSHA and EVAL (the gateway's limiter
 * sends EVALSHA, and EVAL once when Redis has lost the script; @fastify/rate-limit the same).
 */
export function scriptCallsIn(commandstats: string): number {
  return [...commandstats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

/** What counts the script calls Redis ran: read before and after a run, the difference is the run's. */
export interface ScriptCallCounter {
  /** The script calls Redis has run since it started. */
  count(): Promise<number>;
  close(): void;
}

/** A counter of the script calls of the Redis at `url`, over a connection of its own (idle between readings). */
export function scriptCallCounter(url: string): ScriptCallCounter {
  const admin = new Redis(url);
  return {
    count: async () => scriptCallsIn(await admin.info('commandstats')),
    close: () => admin.disconnect(),
  };
}
