/**
 * The Redis engine: every decision in one Lua script call, shared by every gateway instance.
 * `redis-limiter.ts` batches the requests and sends them; `redis-call.ts` encodes a call and
 * reads its reply; `redis-script.ts` (with `call-header-lua.ts`, `account-state-lua.ts`,
 * `window-lua.ts`) decides, as `memory/` does in process. `lift-ban.ts` lifts a key's ban (the
 * admin API), with the script's own reading and writing of an account.
 */
export { createBanLifter } from './lift-ban.js';
export { createRedisLimiter, LateDecisionError, type RedisLimiterOptions } from './redis-limiter.js';
export { RATE_LIMIT_SCRIPT } from './redis-script.js';
