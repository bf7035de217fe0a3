/**
 * Limits in process shared by the workers of one gateway: the primary keeps the counters
 * (`host-limits.ts`), each worker asks it over its port to the primary (`primary-limiter.ts`),
 * in the messages of `protocol.ts`.
 */
export { hostLimits, type HostLimitsOptions, type HostSettings, type LimitsHost } from './host-limits.js';
export { createPrimaryLimiter, type PrimaryLimiter } from './primary-limiter.js';
export type { Engine } from './protocol.js';
