import { daysBack, InvalidCursorError, KEPT_DAYS, type KeyRecord, type Ledger, type LedgerAccount, type LedgerNotes } from './ledger.js';

/** Days of shadow refusals kept: today's, and yesterday's for a listing that began before midnight. */
const SHADOW_DAYS = 2;

/**
 * The ledger in process: in the gateway's one process (one worker, or the tests), or in the
 * primary of several workers, which the workers write to over IPC (`ipc-ledger.ts`), beside the
 * limits it keeps for them. Its size is bounded by the keys the operator issued (only verified
 * keys are seen) times the days kept. Its pages are in account order; a cursor is the last
 * account of the page before.
 */
export function createMemoryLedger() {
  /** Per day, each account seen and the key it used last. */
  const days = new Map<string, Map<string, string>>();
  /** Per account, its keys by id. */
  const keys = new Map<string, Map<string, KeyRecord>>();
  const accountOf = new Map<string, string>();
  /** Per day, per account, refusals by plan. */
  const shadow = new Map<string, Map<string, Map<string, number>>>();
  let newest = '';

  /** Forgets the days past those kept, once a day. */
  function prune(day: string): void {
    if (day <= newest) return;
    newest = day;
    const kept = new Set(daysBack(day, KEPT_DAYS + 1));
    for (const date of days.keys()) if (!kept.has(date)) days.delete(date);
    const shadowKept = new Set(daysBack(day, SHADOW_DAYS));
    for (const date of shadow.keys()) if (!shadowKept.has(date)) shadow.delete(date);
    const oldest = daysBack(day, KEPT_DAYS).at(-1) as string;
    for (const [account, records] of keys) {
      for (const [keyId, record] of records) {
        if (record.seen >= oldest) continue;
        records.delete(keyId);
        accountOf.delete(keyId);
      }
      if (records.size === 0) keys.delete(account);
    }
  }

  function write(notes: LedgerNotes): void {
    prune(notes.day);
    let seen = days.get(notes.day);
    if (seen === undefined) days.set(notes.day, (seen = new Map()));
    for (const record of notes.sightings) {
      seen.set(record.account, record.keyId);
      let records = keys.get(record.account);
      if (records === undefined) keys.set(record.account, (records = new Map()));
      records.set(record.keyId, record);
      accountOf.set(record.keyId, record.account);
    }
    let refusals = shadow.get(notes.day);
    if (refusals === undefined) shadow.set(notes.day, (refusals = new Map()));
    for (const { account, plan, count } of notes.shadowRefusals) {
      let byPlan = refusals.get(account);
      if (byPlan === undefined) refusals.set(account, (byPlan = new Map()));
      byPlan.set(plan, (byPlan.get(plan) ?? 0) + count);
    }
  }

  function entry(day: string, account: string, lastKey: string): LedgerAccount {
    const oldest = daysBack(day, KEPT_DAYS).at(-1) as string;
    const records = [...(keys.get(account)?.values() ?? [])].filter((record) => record.seen >= oldest);
    return { account, lastKey, keys: records, shadowRefusals: Object.fromEntries(shadow.get(day)?.get(account) ?? []) };
  }

  const ledger: Ledger & { readonly writeNow: typeof write } = {
    /** `write`, at once: the ledger of this process, written without waiting. */
    writeNow: write,
    async write(notes) {
      write(notes);
    },
    async page(day, { cursor, limit, search }) {
      let after = '';
      if (cursor !== undefined) {
        if (!cursor.startsWith('m:')) throw new InvalidCursorError();
        after = cursor.slice(2);
      }
      const seen = days.get(day) ?? new Map<string, string>();
      const names = [...seen.keys()].filter((name) => name > after && (search === undefined || name.includes(search))).sort();
      const accounts = names.slice(0, limit).map((name) => entry(day, name, seen.get(name) as string));
      return { accounts, next: names.length > limit ? `m:${names[limit - 1]}` : undefined };
    },
    async account(day, account) {
      const lastKey = days.get(day)?.get(account);
      return lastKey === undefined ? undefined : entry(day, account, lastKey);
    },
    async accountOfKey(keyId) {
      return accountOf.get(keyId);
    },
    async seenOn(dates) {
      const found = new Map<string, string>();
      for (const date of dates) for (const account of days.get(date)?.keys() ?? []) if (!found.has(account)) found.set(account, date);
      return found;
    },
  };
  return ledger;
}

export type MemoryLedger = ReturnType<typeof createMemoryLedger>;
