export { rateLimitHeaders } from './headers.js';
export { createMemoryLimiter, type MemoryLimiterOptions } from './memory-limiter.js';
export { anonymousSubject, createPlans, PlansFile, readPlansFile, type Plans } from './plans.js';
export { heldDecision, minuteAndDay, type BanPolicy, type Limiter, type LimitRequest, type Policy, type RateDecision, type WindowPolicy } from './policy.js';
export { createRateLimiting, type RateLimiting } from './rate-limiting.js';
export { createRedisLimiter, type RedisLimiterOptions } from './redis-limiter.js';
export { createSharedLimiter, RateLimitUnavailableError, type FailurePolicy, type SharedLimiterOptions } from './shared-limiter.js';
