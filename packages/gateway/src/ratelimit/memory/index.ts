/**
 * The in-process engine: every decision in this process's memory (no `REDIS_URL`), and the `local`
 * fallback while Redis is away. `memory-limiter.ts` decides (its options and face in
 * `memory-limiter-api.ts`, which windows refuse in `refusal.ts`); a window is counted by
 * `window-state.ts`, a sliding one by `sliding-window.ts`.
 */
export { createMemoryLimiter } from './memory-limiter.js';
export { DEFAULT_MAX_ADDRESSES, type MemoryLimiter, type MemoryLimiterOptions } from './memory-limiter-api.js';
