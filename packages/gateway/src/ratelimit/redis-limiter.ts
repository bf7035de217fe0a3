import { redisKeyNames, type RedisClient } from '../redis/index.js';
import type { Limiter, LimitRequest, RateDecision } from './policy.js';
import { RATE_LIMIT_SCRIPT } from './redis-script.js';

export interface RedisLimiterOptions {
  readonly prefix: string;
  /** ms since the epoch, for tests only; production uses Redis TIME (one clock for all instances). */
  readonly now?: () => number;
}

/** The limiter shared by every gateway instance: one script call (one round trip) per request. */
export function createRedisLimiter(redis: RedisClient, options: RedisLimiterOptions): Limiter {
  const run = redis.defineScript('rateLimit', RATE_LIMIT_SCRIPT, 1);
  const names = redisKeyNames(options.prefix);
  return {
    async check(request: LimitRequest): Promise<RateDecision> {
      const { policy } = request;
      const ban = policy.ban;
      const args: (string | number)[] = [
        options.now === undefined ? '' : options.now(),
        request.keyId ?? '',
        ban?.strikes ?? 0,
        ban?.strikeWindowMs ?? 0,
        ban?.banMs ?? 0,
        request.pendingStrikes ?? 0,
        policy.windows.length,
      ];
      for (const window of policy.windows) args.push(window.name, window.limit, window.windowMs, window.buckets);
      const reply = (await run([names.limits(request.subject)], args)) as number[];
      const [outcome, now, retry] = reply as [number, number, number];
      return {
        allowed: outcome === 1,
        banned: outcome === 2,
        policy,
        windows: policy.windows.map((window, i) => ({
          name: window.name,
          limit: window.limit,
          windowMs: window.windowMs,
          remaining: Math.max(0, window.limit - (reply[3 + i * 2] as number)),
          resetAt: reply[4 + i * 2] as number,
        })),
        retryAt: retry === -1 ? undefined : retry === 0 ? undefined : retry,
        now,
      };
    },
  };
}
