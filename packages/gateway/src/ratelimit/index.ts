/**
 * Rate limits: what a limit is (`policy.ts`: windows, bans, layers), what it decided
 * (`decision.ts`), the one interface every engine implements (`limiter.ts`), whose counters
 * (`limit-key.ts`), the months of monthly quotas (`calendar.ts`), and the pipeline's view of it
 * all (`rate-limiting.ts`, with the plans of `../plans/`).
 *
 * The engines, one folder each, decide the same way: `memory/` in this process, `redis/` in one
 * Lua script shared by every instance. Another engine is a folder beside them that implements
 * `Limiter`. `front/` stands in front of a shared engine (failure policies, circuit breaker,
 * refusals answered locally); `http/` words a decision as headers.
 */
export { createCalendar, isTimeZone, type Calendar, type Day } from './calendar.js';
export { decision, heldDecision, isDegraded, type DecisionKind, type DecisionSource, type RateDecision, type WindowReading } from './decision.js';
export {
  createRedisViews,
  createSharedLimiter,
  mergeUsed,
  RateLimitUnavailableError,
  type FailurePolicy,
  type RedisViews,
  type SharedLimiterOptions,
  type UsedBySubject,
} from './front/index.js';
export { exhaustedWindows, rateLimitHeaders, retryAfterSeconds } from './http/index.js';
export { accountKey, anonymousKey, anonymousSubject, ceilingSubject, limitSubject, usageKey, type KeyHolder, type LimitKey } from './limit-key.js';
export { CheckFaultError, type Limiter, type LimitRequest } from './limiter.js';
export { createMemoryLimiter, DEFAULT_MAX_ADDRESSES, type MemoryLimiter, type MemoryLimiterOptions } from './memory/index.js';
export {
  dayWindow,
  isMonth,
  minuteAndDay,
  minuteWindow,
  monthWindow,
  type BanPolicy,
  type Layer,
  type MonthWindowPolicy,
  type Policy,
  type SlidingWindowPolicy,
  type WindowKind,
  type WindowPolicy,
} from './policy.js';
export { createRateLimiting, USAGE_POLICY, type KeyTerms, type PlanTerms, type RateLimiting } from './rate-limiting.js';
export { createBanLifter, createRedisLimiter, type RedisLimiterOptions } from './redis/index.js';
