import { redisKeyNames, type RedisClient } from '../../redis/index.js';
import { LIFT_BAN_SCRIPT } from './lift-ban-lua.js';

/**
 * Lifts the ban of a key of `subject`'s account, and forgets its strikes, in Redis (`LIFT_BAN_SCRIPT`):
 * resolves with whether it was banned. `now`: for tests only, as the limiter's (production uses Redis
 * TIME). Every instance's next decision sees it; one that answered
 * the key's refusal from its cache of refusals does so for at most `RATE_LIMIT_DENY_CACHE_MS`.
 */
export function createBanLifter(redis: RedisClient, prefix: string, now?: () => number): (subject: string, keyId: string) => Promise<boolean> {
  const run = redis.defineScript('liftBan', LIFT_BAN_SCRIPT);
  const names = redisKeyNames(prefix);
  return async (subject, keyId) => (await run([names.limits(subject)], [keyId, now === undefined ? '' : now()])) === 1;
}
