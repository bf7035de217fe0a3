import { isMonth } from '../../ratelimit/index.js';
import { daysOfMonthTo, type Ledger } from '../ledger/index.js';
import { countingPolicy, identityOf, peekAs, UNBOUNDED, type LimitsReading } from './limits-reading.js';

/** One account's month, for billing. */
export interface BillingLine {
  readonly account: string;
  /** Its plan in force; `null` when no key of it is known any more. */
  readonly plan: string | null;
  /**
   * The units its month counts, as the monthly quota counts them, less `unaccounted`; `null` when
   * its plan has no `month` (nothing counts a month then).
   */
  readonly units: number | null;
  /** Its monthly quota; `null` without one. */
  readonly quota: number | null;
  /**
   * Units the quota counts that no gateway process said it used: leased to a process that never
   * gave its lease back (killed, or cut off from Redis), or has not yet. Never billed as used;
   * `null` when `units` is.
   */
  readonly unaccounted: number | null;
}

export interface BillingReport {
  /** `YYYY-MM`, in `timeZone`: the month under way (earlier months are no longer counted anywhere). */
  readonly month: string;
  readonly timeZone: string;
  /** When the month started and when the figures were read, Unix seconds. */
  readonly from: number;
  readonly at: number;
  /** Every account seen this month, by name. */
  readonly accounts: readonly BillingLine[];
}

/** Accounts read at once: a batch of peeks, one script call each on Redis. */
const BATCH = 128;

/**
 * The month's units of every account seen this month (the ledger's days of the month), read from
 * the monthly quota's own counter by a peek with its terms (`countingPolicy`: the count itself,
 * beyond the quota too): the units billed are the units the quota enforced, by the same code.
 */
export async function monthlyBilling(reading: LimitsReading, ledger: Ledger): Promise<BillingReport> {
  const at = reading.now();
  const day = reading.calendar.dayOf(at);
  const month = reading.calendar.monthOf(at);
  const seen = [...(await ledger.seenOn(daysOfMonthTo(day.date)))].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const accounts: BillingLine[] = [];
  for (let i = 0; i < seen.length; i += BATCH) {
    accounts.push(...(await Promise.all(seen.slice(i, i + BATCH).map(([account, date]) => lineOf(reading, ledger, account, date)))));
  }
  return { month: day.date.slice(0, 7), timeZone: reading.calendar.zone, from: Math.floor(month.start / 1000), at: Math.floor(at / 1000), accounts };
}

async function lineOf(reading: LimitsReading, ledger: Ledger, account: string, date: string): Promise<BillingLine> {
  const entry = await ledger.account(date, account);
  const last = entry?.keys.find((record) => record.keyId === entry.lastKey) ?? entry?.keys.at(-1);
  if (last === undefined) return { account, plan: null, units: null, quota: null, unaccounted: null };
  const identity = identityOf(last);
  const { policy } = reading.plans.forKey(identity, undefined);
  const quota = policy.windows.find(isMonth);
  if (quota === undefined) return { account, plan: policy.name, units: null, quota: null, unaccounted: null };
  const counted = await peekAs(reading, identity, countingPolicy(policy), false, []);
  const month = counted.windows.find(isMonth);
  if (month === undefined) return { account, plan: policy.name, units: null, quota: quota.limit, unaccounted: null };
  const unaccounted = month.unaccounted ?? 0;
  return { account, plan: policy.name, units: UNBOUNDED - month.remaining - unaccounted, quota: quota.limit, unaccounted };
}

/** A CSV field, quoted when it must be, and never read as a formula by a spreadsheet (OWASP's CSV injection). */
function field(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  // `;` too: a spreadsheet of a `;` locale (German, French) splits a line at it, not at `,`.
  return /[",;\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The report as CSV (RFC 4180, CRLF): a header, then one line an account (`unaccounted` last: added after the others). */
export function billingCsv(report: BillingReport): string {
  const lines = [['month', 'account', 'plan', 'units', 'quota', 'unaccounted'].join(',')];
  for (const line of report.accounts) lines.push([report.month, line.account, line.plan, line.units, line.quota, line.unaccounted].map(field).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
