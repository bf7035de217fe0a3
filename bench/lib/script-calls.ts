import { Redis } from 'ioredis';

/*
 * What Redis did during a run, from its own counters (issue 40): the script calls and the time it
 * spent in them (`INFO commandstats`), and its CPU (`INFO cpu`), read before and after the run,
 * summed over the nodes of a cluster. Redis CPU per request and requests per script call are the
 * differences ÷ the run's requests.
 */

/** Redis's counters at a moment, or their differences over a run. */
export interface RedisStats {
  /**
   * FCALL, EVALSHA and EVAL calls (the gateway's limiter sends FCALL where Redis has functions,
   * EVALSHA elsewhere and EVAL once when Redis lost the script; @fastify/rate-limit EVALSHA).
   */
  readonly scriptCalls: number;
  /** µs Redis spent running them (commandstats' `usec`). */
  readonly scriptUsec: number;
  /** µs of CPU the server used, user and system, all its threads (`used_cpu_user` + `used_cpu_sys`). */
  readonly cpuUsec: number;
}

/** The script calls of an `INFO commandstats` reply: FCALL, EVALSHA and EVAL. */
export function scriptCallsIn(commandstats: string): number {
  return redisStatsIn(commandstats).scriptCalls;
}

/** The counters of an `INFO cpu commandstats` reply (either section may be missing: 0). */
export function redisStatsIn(info: string): RedisStats {
  let scriptCalls = 0;
  let scriptUsec = 0;
  for (const match of info.matchAll(/^cmdstat_(?:evalsha|eval|fcall):calls=(\d+),usec=(\d+)/gm)) {
    scriptCalls += Number(match[1]);
    scriptUsec += Number(match[2]);
  }
  const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  // Seconds with six decimals: rounded to whole µs, so a difference is not off by binary fractions.
  const cpuUsec = Math.round((seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1_000_000);
  return { scriptCalls, scriptUsec, cpuUsec };
}

/** `after` − `before`. */
export function statsDelta(before: RedisStats, after: RedisStats): RedisStats {
  return { scriptCalls: after.scriptCalls - before.scriptCalls, scriptUsec: after.scriptUsec - before.scriptUsec, cpuUsec: after.cpuUsec - before.cpuUsec };
}

/** Reads the counters of one Redis or of every node of a cluster, summed. */
export interface ScriptCallCounter {
  /** The script calls Redis has run since it started. */
  count(): Promise<number>;
  /** Every counter, summed over the nodes. */
  stats(): Promise<RedisStats>;
  close(): void;
}

/** A reader of the Redis at each of `urls` (one for a standalone Redis), over connections of its own, idle between readings. */
export function scriptCallCounter(...urls: string[]): ScriptCallCounter {
  const admins = urls.map((url) => new Redis(url));
  const stats = async () => {
    const each = await Promise.all(admins.map(async (admin) => redisStatsIn(await admin.info('cpu', 'commandstats'))));
    return each.reduce((sum, next) => ({
      scriptCalls: sum.scriptCalls + next.scriptCalls,
      scriptUsec: sum.scriptUsec + next.scriptUsec,
      cpuUsec: sum.cpuUsec + next.cpuUsec,
    }));
  };
  return {
    count: async () => (await stats()).scriptCalls,
    stats,
    close: () => admins.forEach((admin) => admin.disconnect()),
  };
}
