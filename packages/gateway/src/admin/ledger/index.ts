/**
 * The ledger: who the limits saw on each day (a key's first request of the day), and what plans
 * in shadow would have refused (`ledger.ts`). Written by a subscriber of the decisions
 * (`ledger-recorder.ts`), kept in Redis (`redis-ledger.ts`) or in process (`memory-ledger.ts`,
 * reached from a worker over IPC when the primary keeps the limits: `ipc-ledger.ts`).
 */
export { attachLedger, ledgerInPrimary } from './ipc-ledger.js';
export {
  daysBack,
  daysOfMonthTo,
  InvalidCursorError,
  KEPT_DAYS,
  PartlyWrittenError,
  type KeyRecord,
  type Ledger,
  type LedgerAccount,
  type LedgerNotes,
  type LedgerPage,
  type PageQuery,
} from './ledger.js';
export { recordLedger, type RecorderOptions } from './ledger-recorder.js';
export { createMemoryLedger, type MemoryLedger } from './memory-ledger.js';
export { createRedisLedger } from './redis-ledger.js';
