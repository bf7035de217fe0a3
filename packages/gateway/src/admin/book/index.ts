/**
 * What the admin API reads from the limits: today's accounts and their use (`account-report.ts`),
 * billing (`billing.ts`), the check of a candidate plans file (`plans-check.ts`), behind one face
 * (`account-book.ts`), each a peek with the limiter's own code (`limits-reading.ts`).
 */
export { createAccountBook, type AccountBook, type AccountsPage, type PageRequest } from './account-book.js';
export { withRevocation, type AccountReport, type KeyReport, type NextDecision, type WindowUse } from './account-report.js';
export type { BillingLine, BillingReport } from './billing.js';
export type { LimitsReading } from './limits-reading.js';
export type { PlansCheck, WouldRefuse } from './plans-check.js';
