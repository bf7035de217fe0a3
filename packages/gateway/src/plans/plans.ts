import {
  ceilingSubject,
  dayWindow,
  minuteAndDay,
  minuteWindow,
  monthWindow,
  type BanPolicy,
  type KeyHolder,
  type KeyTerms,
  type Layer,
  type Policy,
  type WindowPolicy,
} from '../ratelimit/index.js';
import { own, type PlansFile } from './plans-file.js';
import { watchPlans, type PlansSourceOptions } from './plans-source.js';

/** What the file is checked against, and `SHADOW_PLANS`: plans computed and charged, never enforced. */
export type PlansOptions = PlansSourceOptions;

const windowsOf = (limits: { readonly minute?: number | undefined; readonly day?: number | undefined; readonly month?: number | undefined }) => {
  const windows: WindowPolicy[] = [];
  if (limits.minute !== undefined) windows.push(minuteWindow(limits.minute));
  if (limits.day !== undefined) windows.push(dayWindow(limits.day));
  if (limits.month !== undefined) windows.push(monthWindow(limits.month));
  return windows;
};

function banOf(entry: PlansFile['plans'][string], fallback: PlansFile['ban']): BanPolicy | undefined {
  const ban = entry.ban ?? fallback;
  return ban === undefined ? undefined : { strikes: ban.strikes, strikeWindowMs: ban.strikeWindowSeconds * 1000, banMs: ban.banSeconds * 1000 };
}

/** The ceiling of `operationId` as a layer (`op:<operationId>`), its windows named after it. */
function ceilingOf(p: PlansFile, operationId: string): Layer[] {
  const ceiling = own(p.operations, operationId);
  return ceiling === undefined ? [] : [{ subject: ceilingSubject(operationId), policy: { name: operationId, windows: windowsOf(ceiling), ban: undefined } }];
}

/** Every operation ceiling of `p`, as layers. */
const ceilingsOf = (p: PlansFile): Layer[] => Object.keys(p.operations).flatMap((operationId) => ceilingOf(p, operationId));

/** The terms of a plan the file does not have: nothing passes. */
const NO_PLAN: PlansFile['plans'][string] = { minute: 0, day: 0 };

/**
 * A key's terms for a request of `operationId` under the plans `p`. The account's terms first
 * (its plan, its own limits), then the limits signed into the key, then its plan's, window by
 * window. `shadowPlans`: `SHADOW_PLANS`.
 */
function termsOf(p: PlansFile, holder: KeyHolder, operationId: string | undefined, shadowPlans: ReadonlySet<string> | undefined): KeyTerms {
  const account = own(p.accounts, holder.subject);
  const name = account?.plan ?? holder.plan;
  // A key naming no plan of the file is refused before it is limited (`has`); the admin API still
  // reads keys seen before a plan was removed: they get windows of 0, which refuse everything.
  const plan = own(p.plans, name) ?? NO_PLAN;
  const signed = holder.limits;
  const windows = windowsOf({
    minute: account?.minute ?? signed?.minute ?? plan.minute,
    day: account?.day ?? signed?.day ?? plan.day,
    month: account?.month ?? plan.month,
  });
  return {
    policy: { name, windows, ban: banOf(plan, p.ban) },
    cost: operationId === undefined ? 1 : (own(plan.cost, operationId) ?? 1),
    shadow: account?.shadow ?? (plan.shadow === true || shadowPlans?.has(name) === true),
    layers: operationId === undefined ? [] : ceilingOf(p, operationId),
  };
}

/**
 * What the content `p` of a plans file says, not watched: the terms a candidate file would give
 * before it is put in force (the admin API's check of plans), by the same functions as the plans
 * in force (`createPlans`).
 */
export function plansOfContent(p: PlansFile, options: Pick<PlansOptions, 'shadowPlans'> = {}) {
  return {
    forKey: (holder: KeyHolder, operationId: string | undefined): KeyTerms => termsOf(p, holder, operationId, options.shadowPlans),
    ceilings: (): Layer[] => ceilingsOf(p),
  };
}

/**
 * Policies from a plans file that may change while the gateway runs: the file is looked at for
 * every request (one `stat` per event-loop turn, see `watchPlans`) and read again when it changed,
 * so a plan change applies from the next request (a large file's, once its read in a worker thread
 * is done: `reloading`). A file that became invalid or disappeared keeps the last good plans, and
 * each outcome is published (`plansReload`) with the version in force.
 */
export function createPlans(file: string, options: PlansOptions = {}) {
  const watched = watchPlans(file, options);
  const current = () => watched.current();
  let remembered: { file: PlansFile | undefined; terms: WeakMap<KeyHolder, Map<string, KeyTerms>> } = { file: undefined, terms: new WeakMap() };
  let anonymous: { file: PlansFile | undefined; policy: Policy } = { file: undefined, policy: minuteAndDay('anonymous', 0, 0) };
  const terms = {
    /** Looks at the file: while a changed large file is being read, what settles once it applies. */
    reloading: () => watched.reloading(),
    /** Which content of the file is in force. */
    version: () => watched.version(),
    /** A key's terms for a request of `operationId` (see `termsOf`), the same object while nothing changed. */
    forKey(holder: KeyHolder, operationId: string | undefined): KeyTerms {
      const p = current();
      // Remembered per key and operation until the file changes: a key's every request would
      // otherwise build the same policies again (and the Redis call encode them again).
      if (p !== remembered.file) remembered = { file: p, terms: new WeakMap() };
      let byOperation = remembered.terms.get(holder);
      if (byOperation === undefined) remembered.terms.set(holder, (byOperation = new Map()));
      const key = operationId ?? '';
      let found = byOperation.get(key);
      if (found === undefined) byOperation.set(key, (found = termsOf(p, holder, operationId, options.shadowPlans)));
      return found;
    },
    /** The key's policy: its account's windows and bans (`forKey`'s). */
    forIdentity(holder: KeyHolder): Policy {
      return terms.forKey(holder, undefined).policy;
    },
    /** True when the file in force has a plan of that name (a key naming none is refused). */
    has(plan: string): boolean {
      return own(current().plans, plan) !== undefined;
    },
    /** Every operation ceiling, as layers (`GET /v1/usage` reports them). */
    ceilings(): Layer[] {
      return ceilingsOf(current());
    },
    /** The content in force, as read (the admin API's dump of the settings). */
    content: (): PlansFile => current(),
    /** The units each operation costs on the key's plan, where it is not 1. */
    costs(holder: KeyHolder): Readonly<Record<string, number>> {
      const p = current();
      return own(p.plans, own(p.accounts, holder.subject)?.plan ?? holder.plan)?.cost ?? {};
    },
    /** The policy of a request without a valid key, the same object while the file is unchanged. */
    anonymous(): Policy {
      const p = current();
      if (anonymous.file !== p) anonymous = { file: p, policy: { ...minuteAndDay('anonymous', p.anonymous.minute, p.anonymous.day), anonymous: true } };
      return anonymous.policy;
    },
  };
  return terms;
}
export type Plans = ReturnType<typeof createPlans>;
