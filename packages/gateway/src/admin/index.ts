/**
 * The admin API and console (issue 32): who uses what, on the admin listener, with an admin token.
 * `admin.ts` wires it for the process that serves the listener; `admin-api.ts` answers `/admin`
 * (`admin-routes.ts`, the endpoints; `console/`, the page). What it reads is the limits' own state
 * through `book/`, for the accounts of `ledger/`; what it changes: revocations (`revoker.ts`, as
 * `keys revoke` does) and bans (the engine's own `liftBan`).
 */
export { createAdmin, type AdminOptions, type PlansInForce } from './admin.js';
export { ADMIN_ERRORS, AdminError, type AdminErrorCode } from './admin-errors.js';
export { prepareAdmin } from './admin-files.js';
export type { AccountSource } from './admin-routes.js';
export { readAdminTokens, type AdminTokens } from './admin-tokens.js';
export { answersHost, createHostCheck } from './host-check.js';
export { unavailableWhenFailing } from './unavailable-source.js';
export { answerFromBook, bookOfWorker } from './worker-book.js';
export { createAccountBook, type AccountBook, type LimitsReading } from './book/index.js';
export {
  attachLedger,
  createMemoryLedger,
  createRedisLedger,
  InvalidCursorError,
  ledgerInPrimary,
  recordLedger,
  type RecorderOptions,
  type Ledger,
  type MemoryLedger,
} from './ledger/index.js';
