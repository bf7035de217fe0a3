import type { PlansFile } from '../../plans/index.js';
import { InvalidCursorError, type Ledger } from '../ledger/index.js';
import { reportAccount, type AccountReport, type KeyReport } from './account-report.js';
import { billingCsv, monthlyBilling, type BillingReport } from './billing.js';
import { subjectOf, type LimitsReading } from './limits-reading.js';
import { checkCandidate, type PlansCheck } from './plans-check.js';

/** A page of today's accounts (`GET /admin/accounts`). */
export interface AccountsPage {
  /** The day listed (`YYYY-MM-DD`, `QUOTA_TIME_ZONE`): the first page's today, kept by its `next`. */
  readonly day: string;
  readonly accounts: readonly AccountReport[];
  /** The cursor of the next page; absent on the last. */
  readonly next?: string;
}

export interface PageRequest {
  readonly cursor?: string | undefined;
  readonly limit: number;
  readonly search?: string | undefined;
}

/** The cursor the API gives: the day listed and the ledger's own cursor, opaque to the client. */
const encodeCursor = (day: string, at: string) => Buffer.from(JSON.stringify([day, at])).toString('base64url');

function decodeCursor(cursor: string): { readonly day: string; readonly at: string } {
  try {
    const [day, at] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof day === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(day) && typeof at === 'string') return { day, at };
  } catch {
    // Not ours: answered below.
  }
  throw new InvalidCursorError();
}

/**
 * Everything the admin API reads and changes where the limits are kept: today's accounts from the
 * ledger with their use from the limits (`account-report.ts`), the month's units for billing, the
 * check of a candidate plans file, and the lifting of a ban. Its answers are plain data: a lone
 * worker that keeps the limits answers them to its primary over IPC (`worker-source.ts`).
 */
export function createAccountBook(reading: LimitsReading, ledger: Ledger) {
  const today = () => reading.calendar.dayOf(reading.now()).date;
  return {
    /** A page of the accounts seen today; `InvalidCursorError` for a cursor not given by this API. */
    async page(request: PageRequest): Promise<AccountsPage> {
      const from = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
      const day = from?.day ?? today();
      const page = await ledger.page(day, { cursor: from?.at, limit: request.limit, search: request.search });
      const accounts = await Promise.all(page.accounts.map(async (entry) => (await reportAccount(reading, entry, false)).report));
      return { day, accounts, ...(page.next === undefined ? {} : { next: encodeCursor(day, page.next) }) };
    },
    /** `name` with its keys, if it was seen today. */
    async account(name: string): Promise<{ readonly day: string; readonly report: AccountReport; readonly keys: readonly KeyReport[] } | undefined> {
      const day = today();
      const entry = await ledger.account(day, name);
      if (entry === undefined) return undefined;
      return { day, ...(await reportAccount(reading, entry, true)) };
    },
    billing: (): Promise<BillingReport> => monthlyBilling(reading, ledger),
    billingCsv: async (): Promise<string> => billingCsv(await monthlyBilling(reading, ledger)),
    check: (candidate: PlansFile): Promise<PlansCheck> => checkCandidate(reading, ledger, candidate),
    /** The account of a key seen by this gateway (in the last weeks), or `undefined`. */
    accountOfKey: (keyId: string): Promise<string | undefined> => ledger.accountOfKey(keyId),
    /** Lifts the ban of `keyId`: its account and whether it was banned; `undefined` for a key never seen. */
    async liftBan(keyId: string): Promise<{ readonly account: string; readonly lifted: boolean } | undefined> {
      const account = await ledger.accountOfKey(keyId);
      if (account === undefined) return undefined;
      return { account, lifted: await reading.liftBan(subjectOf(account), keyId) };
    },
  };
}

export type AccountBook = ReturnType<typeof createAccountBook>;
