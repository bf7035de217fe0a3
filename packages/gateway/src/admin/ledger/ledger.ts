import type { CustomLimits } from '../../identity/index.js';

/**
 * The ledger: who the limits saw on each day, and what plans in shadow would have refused them.
 * The limiter's state says how much an account used, never who the account's keys are nor what
 * plan a key names (that is in the key, a JWT); the ledger keeps exactly that, written only on
 * rare events (a key's first request of the day in each process, a shadow refusal), never on
 * every request. The admin API lists a day's accounts from it and reads their use from the
 * limiter's own state with those keys' terms (see `../book/`). Kept in Redis with `REDIS_URL`,
 * else where the limits in process are (`memory-ledger.ts`).
 */

/** What a key says of itself, as the ledger keeps it: enough to work out its terms again. */
export interface KeyRecord {
  readonly account: string;
  readonly keyId: string;
  /** The plan the key names (its account's terms in the plans file may name another). */
  readonly plan: string;
  /** Limits signed into the key. */
  readonly limits?: CustomLimits | undefined;
  /** When the key expires (ms since the epoch), if it does. */
  readonly expiresAt?: number | undefined;
  /** The last day it was seen on (`YYYY-MM-DD` in `QUOTA_TIME_ZONE`). */
  readonly seen: string;
}

/** An account as the ledger knows it on a day. */
export interface LedgerAccount {
  readonly account: string;
  /** The id of the key it used last that day: its terms are the account's. */
  readonly lastKey: string;
  /** Its keys seen in the last `KEPT_DAYS` days, the last one among them. */
  readonly keys: readonly KeyRecord[];
  /** The requests of that day that a plan in shadow would have refused, by plan. */
  readonly shadowRefusals: Readonly<Record<string, number>>;
}

/** What one process learnt since it last wrote: keys seen on `day`, and shadow refusals. */
export interface LedgerNotes {
  readonly day: string;
  /** Each key's first request of the day (in that process). */
  readonly sightings: readonly KeyRecord[];
  readonly shadowRefusals: readonly { readonly account: string; readonly plan: string; readonly count: number }[];
}

/**
 * A write that reached the ledger in part: `unwritten` is what did not (written again with the next
 * notes); the rest is written, and must not be again (a shadow refusal would count twice).
 */
export class PartlyWrittenError extends Error {
  constructor(
    readonly unwritten: LedgerNotes,
    cause: unknown,
  ) {
    super('the ledger took only part of the notes', { cause });
    this.name = 'PartlyWrittenError';
  }
}

/** A page of a day's accounts: `next` continues it, absent on the last page. */
export interface LedgerPage {
  readonly accounts: readonly LedgerAccount[];
  readonly next: string | undefined;
}

export interface PageQuery {
  /** Where the previous page ended (its `next`), or `undefined` for the first. */
  readonly cursor: string | undefined;
  readonly limit: number;
  /** Only accounts whose name holds this text (case sensitive). */
  readonly search?: string | undefined;
}

export interface Ledger {
  /** Rejects with `PartlyWrittenError` when some of the notes were written and others not. */
  write(notes: LedgerNotes): Promise<void>;
  /** A page of the accounts seen on `day`. A cursor is the ledger's own: another's is rejected as invalid. */
  page(day: string, query: PageQuery): Promise<LedgerPage>;
  /** `account` as seen on `day`; `undefined` when it was not. */
  account(day: string, account: string): Promise<LedgerAccount | undefined>;
  /** The account of a key seen at any time, or `undefined`. */
  accountOfKey(keyId: string): Promise<string | undefined>;
  /** Each account seen on any of `days` (newest first), with the first of them it was seen on. */
  seenOn(days: readonly string[]): Promise<ReadonlyMap<string, string>>;
}

/** How long a key's record is kept after it was last seen: a month and some. */
export const KEPT_DAYS = 35;

/** A cursor the ledger cannot read (tampered with, or another engine's). */
export class InvalidCursorError extends Error {
  constructor() {
    super('cursor is not one this gateway gave');
    this.name = 'InvalidCursorError';
  }
}

/** The dates from `day` back `count - 1` days, newest first (`2026-11-28`, `2026-11-27`, …). */
export function daysBack(day: string, count: number): string[] {
  const start = Date.parse(`${day}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => new Date(start - i * 86_400_000).toISOString().slice(0, 10));
}

/** The days of `day`'s month up to it, newest first: what billing reads. */
export function daysOfMonthTo(day: string): string[] {
  return daysBack(day, Number(day.slice(8, 10)));
}
