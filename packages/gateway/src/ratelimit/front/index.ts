/**
 * What stands in front of a shared engine (`redis/`): refusals of hot keys answered locally, a
 * circuit breaker, and the failure policies (`open`, `closed`, `local`) while the engine fails.
 */
export { createSharedLimiter, RateLimitUnavailableError, type FailurePolicy, type SharedLimiterOptions } from './shared-limiter.js';
