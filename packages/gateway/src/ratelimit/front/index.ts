/**
 * What stands in front of a shared engine (`redis/`): refusals of hot keys answered locally, a
 * circuit breaker, and the failure policies (`open`, `closed`, `local`) while the engine fails
 * (`shared-limiter.ts`, `circuit-breaker.ts`); `redis-views.ts` keeps what Redis said last of each
 * account, which the `local` policy starts from.
 */
export { createSharedLimiter, RateLimitUnavailableError, type FailurePolicy, type SharedLimiterOptions } from './shared-limiter.js';
export { createRedisViews, mergeUsed, type RedisViews, type UsedBySubject } from './redis-views.js';
