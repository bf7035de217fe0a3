export { usageBody, type UsageBody } from './usage-body.js';
