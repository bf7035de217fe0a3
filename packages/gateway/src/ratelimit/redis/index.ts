/**
 * The Redis engine: every decision in one Lua script call, shared by every gateway instance.
 * `redis-limiter.ts` batches the requests and sends them (its options in `redis-limiter-options.ts`);
 * `redis-call.ts` encodes a call (policies by `policy-args.ts`), `redis-reply.ts` reads its reply; `call-faults.ts`
 * says how a call fails (one request's fault fails it alone); `redis-script.ts`
 * (with `call-header-lua.ts`, `account-state-lua.ts`, `window-lua.ts`, `reply-lua.ts`) decides, as
 * `memory/` does in process. Leases: `leases.ts` (with `lease-entry.ts`) in the gateway process,
 * `lease-lua.ts` and `lease-record-lua.ts` in the script, `lease-recall.ts` between processes. `lift-ban.ts` lifts a key's ban (the
 * admin API), with the script's own reading and writing of an account.
 */
export { createBanLifter } from './lift-ban.js';
export { LateDecisionError } from './call-faults.js';
export { type RedisLimiterOptions } from './redis-limiter-options.js';
export { createRedisLimiter } from './redis-limiter.js';
export { RATE_LIMIT_LIBRARY, RATE_LIMIT_SCRIPT } from './redis-script.js';
