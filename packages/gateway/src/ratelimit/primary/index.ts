// Limits in process shared by the workers of one gateway: the primary keeps the counters
// (`hostLimits`), each worker asks it over the cluster's IPC channel (`createPrimaryLimiter`).
export { hostLimits, type HostedWorker, type HostLimitsOptions, type LimitsHost } from './host-limits.js';
export { createPrimaryLimiter, type ChannelToPrimary, type PrimaryLimiter } from './primary-limiter.js';
export { CHECK_TYPE, DECIDED_TYPE, type Engine } from './protocol.js';
