import type { RateDecision } from '../../ratelimit/index.js';
import { usageBody } from '../../usage/index.js';
import type { KeyRecord, LedgerAccount } from '../ledger/index.js';
import { countingPolicy, identityOf, peekAs, UNBOUNDED, type LimitsReading } from './limits-reading.js';

/** One window of an account: its limit, what it counts now, what is left, when it is whole again (Unix seconds). */
export interface WindowUse {
  readonly limit: number;
  readonly used: number;
  readonly remaining: number;
  readonly resetAt: number;
}

/**
 * What its next request would get, cost 1, with the key it used last: `shadow_limited` is an
 * admission that its plan, in shadow, would have refused (the decisions' own words); `revoked`:
 * that key is revoked (said by the admin API, which reads the deny-lists: `withRevocation`).
 */
export type NextDecision = 'allowed' | 'shadow_limited' | 'limited' | 'banned' | 'revoked';

/**
 * `report` as its next request would find it once the deny-lists are read: `revoked` (and no
 * `retryAt`) when the key it used last is refused now. `revocations`: key id → refused from (ms).
 */
export function withRevocation(report: AccountReport, revocations: ReadonlyMap<string, number>, now: number): AccountReport {
  const from = revocations.get(report.lastKey);
  return from !== undefined && from <= now ? { ...report, next: 'revoked', retryAt: null } : report;
}

/** An account as the admin API reports it: its plan in force and the state of its windows now. */
export interface AccountReport {
  readonly account: string;
  /** The plan in force: the one its last key names, or the account's own in the plans file; `null` when no key of it is known any more. */
  readonly plan: string | null;
  /** Its plan is computed and charged, never enforced. */
  readonly shadow: boolean;
  readonly next: NextDecision;
  /** When a refused next request fits again (Unix seconds); `null` when admitted, or never. */
  readonly retryAt: number | null;
  /** Its plan's windows (`minute`, `day`, `month`), as `GET /v1/usage` reads them, with what each counts. */
  readonly windows: Readonly<Record<string, WindowUse>>;
  /** Each operation's ceiling, shared by every caller. Absent without ceilings. */
  readonly operations?: Readonly<Record<string, Readonly<Record<string, WindowUse>>>>;
  /** Today's refusals that plans in shadow would have made, by plan. */
  readonly shadowRefusals: Readonly<Record<string, number>>;
  /** A key of it is banned now. */
  readonly banned: boolean;
  /** The id of the key it used last. */
  readonly lastKey: string;
}

/** One key of an account, with its ban. */
export interface KeyReport {
  readonly id: string;
  /** The plan the key names. */
  readonly plan: string;
  /** The last day it was seen on. */
  readonly lastSeen: string;
  readonly expiresAt: number | null;
  /** Unix seconds, while it is banned. */
  readonly bannedUntil: number | null;
}

const seconds = (ms: number) => Math.ceil(ms / 1000);

/** What a peek as an account's next request says it would get. */
export function nextOf(decided: RateDecision): NextDecision {
  if (decided.kind === 'banned' || decided.kind === 'limited') return decided.kind;
  return decided.shadow === true ? 'shadow_limited' : 'allowed';
}

/**
 * `entry`, read from the limits: one peek as its next request (the terms of the key it used last,
 * with every operation ceiling: the `GET /v1/usage` view, through `usageBody`), and one peek per
 * key it has with its plan's windows unbounded (`countingPolicy`), which says what each window
 * counts and whether that key is banned. With `detail`, each key's report too.
 */
export async function reportAccount(
  reading: LimitsReading,
  entry: LedgerAccount,
  detail: boolean,
): Promise<{ readonly report: AccountReport; readonly keys: readonly KeyReport[] }> {
  const byId = new Map(entry.keys.map((record) => [record.keyId, record]));
  const last = byId.get(entry.lastKey) ?? entry.keys.at(-1);
  const empty = { account: entry.account, shadowRefusals: entry.shadowRefusals, lastKey: entry.lastKey, banned: false, retryAt: null, windows: {} };
  if (last === undefined) return { report: { ...empty, plan: null, shadow: false, next: 'allowed' }, keys: [] };
  const identity = identityOf(last);
  const { policy, shadow } = reading.plans.forKey(identity, undefined);
  const counting = countingPolicy(policy);
  const [next, ...perKey] = await Promise.all([
    peekAs(reading, identity, policy, shadow, reading.plans.ceilings()),
    ...entry.keys.map((record) => peekAs(reading, identityOf(record), counting, false, [])),
  ]);
  const lastCount = perKey[entry.keys.indexOf(last)] as RateDecision;
  const used = new Map(lastCount.windows.map((window) => [window.name, UNBOUNDED - window.remaining]));
  const usage = usageBody(identity, next, { plan: policy.name, costs: reading.plans.costs(identity), shadow });
  const withUse = (windows: Record<string, { limit: number; remaining: number; resetAt: number }>, own: boolean) =>
    Object.fromEntries(
      Object.entries(windows).map(([name, window]) => [
        name,
        { limit: window.limit, used: own ? (used.get(name) ?? 0) : window.limit - window.remaining, remaining: window.remaining, resetAt: window.resetAt },
      ]),
    );
  const bannedUntil = (decided: RateDecision | undefined) => (decided?.kind === 'banned' && decided.retryAt !== undefined ? seconds(decided.retryAt) : null);
  const report: AccountReport = {
    account: entry.account,
    plan: policy.name,
    shadow,
    next: nextOf(next),
    retryAt: next.allowed || next.retryAt === undefined ? null : seconds(next.retryAt),
    windows: withUse(usage.windows, true),
    ...(usage.operations === undefined
      ? {}
      : { operations: Object.fromEntries(Object.entries(usage.operations).map(([operation, windows]) => [operation, withUse(windows, false)])) }),
    shadowRefusals: entry.shadowRefusals,
    banned: perKey.some((decided) => decided.kind === 'banned'),
    lastKey: last.keyId,
  };
  const keys = detail ? entry.keys.map((record: KeyRecord, i) => keyReport(record, bannedUntil(perKey[i]))) : [];
  return { report, keys };
}

function keyReport(record: KeyRecord, bannedUntil: number | null): KeyReport {
  return {
    id: record.keyId,
    plan: record.plan,
    lastSeen: record.seen,
    expiresAt: record.expiresAt === undefined ? null : Math.floor(record.expiresAt / 1000),
    bannedUntil,
  };
}
