export { exhaustedWindows, rateLimitHeaders, retryAfterSeconds } from './headers.js';
export { createMemoryLimiter, DEFAULT_MAX_ADDRESSES, type MemoryLimiterOptions } from './memory-limiter.js';
export { accountKey, anonymousKey, anonymousSubject, ceilingSubject, limitSubject, usageKey, type KeyHolder, type LimitKey } from './limit-key.js';
export {
  BUCKETS_PER_WINDOW,
  DAY_MS,
  decision,
  heldDecision,
  isDegraded,
  minuteAndDay,
  MINUTE_MS,
  monthWindow,
  type BanPolicy,
  type DecisionKind,
  type DecisionSource,
  type Layer,
  type Limiter,
  type LimitRequest,
  type Policy,
  type RateDecision,
  type WindowPolicy,
  type WindowReading,
} from './policy.js';
export { createRateLimiting, type RateLimiting } from './rate-limiting.js';
export { createRedisLimiter, type RedisLimiterOptions } from './redis-limiter.js';
export { createSharedLimiter, RateLimitUnavailableError, type FailurePolicy, type SharedLimiterOptions } from './shared-limiter.js';
