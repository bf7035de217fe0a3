/**
 * Plans as data: the plans file (`PLANS_FILE`) read, checked and watched, and what it says of a
 * request (`createPlans`: a key's policy, the cost of its operation, its layers, shadow or not).
 * What a policy is, and how a limit decides, is `ratelimit/`'s.
 */
export { createPlans, plansOfContent, type Plans, type PlansOptions } from './plans.js';
export { checkPlansText, MAX_CEILINGS, PlansFile, readPlansFile, type PlansContext } from './plans-file.js';
