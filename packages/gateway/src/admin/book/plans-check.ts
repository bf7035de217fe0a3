import { plansOfContent, type PlansFile } from '../../plans/index.js';
import type { Ledger, LedgerAccount } from '../ledger/index.js';
import { nextOf, type NextDecision } from './account-report.js';
import { identityOf, peekAs, type LimitsReading } from './limits-reading.js';

/** An account a candidate plans file would refuse now. */
export interface WouldRefuse {
  readonly account: string;
  /** Its plan under the candidate, and whether the candidate has it in shadow (then it would be admitted, and counted). */
  readonly plan: string;
  readonly shadow: boolean;
  /** What would refuse: `banned`, or the window (`minute`, `day`, `month`), of the plan or of an operation's ceiling (`layer`). */
  readonly refusal: 'banned' | string;
  readonly layer?: string;
  /** When its next request would fit again (Unix seconds); `null` for never (a limit below 1). */
  readonly retryAt: number | null;
  /** What the plans in force give its next request now. */
  readonly now: NextDecision;
}

export interface PlansCheck {
  readonly day: string;
  /** Accounts seen today, each checked. */
  readonly checked: number;
  /** Those the candidate would refuse now, by name. */
  readonly refused: readonly WouldRefuse[];
}

/** Accounts of the day read a page at a time. */
const PAGE = 500;

/**
 * Which accounts seen today a candidate plans file (already checked, see `checkPlansText`) would
 * refuse right now: each account's next request (cost 1, the key it used last) peeked under the
 * candidate's terms and ceilings, enforced (a plan in shadow says what it would refuse), and under
 * the plans in force, for comparison. Nothing is charged, nothing of the candidate is kept.
 */
export async function checkCandidate(reading: LimitsReading, ledger: Ledger, candidate: PlansFile): Promise<PlansCheck> {
  const day = reading.calendar.dayOf(reading.now()).date;
  const terms = plansOfContent(candidate, { shadowPlans: reading.shadowPlans });
  const ceilings = terms.ceilings();
  const refused: WouldRefuse[] = [];
  let checked = 0;
  let cursor: string | undefined;
  do {
    const page = await ledger.page(day, { cursor, limit: PAGE });
    checked += page.accounts.length;
    const outcomes = await Promise.all(page.accounts.map((entry) => check(entry)));
    for (const outcome of outcomes) if (outcome !== undefined) refused.push(outcome);
    cursor = page.next;
  } while (cursor !== undefined);
  refused.sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
  return { day, checked, refused };

  async function check(entry: LedgerAccount): Promise<WouldRefuse | undefined> {
    const last = entry.keys.find((record) => record.keyId === entry.lastKey) ?? entry.keys.at(-1);
    if (last === undefined) return undefined;
    const identity = identityOf(last);
    const candidateTerms = terms.forKey(identity, undefined);
    const inForce = reading.plans.forKey(identity, undefined);
    const [under, current] = await Promise.all([
      peekAs(reading, identity, candidateTerms.policy, false, ceilings),
      peekAs(reading, identity, inForce.policy, inForce.shadow, reading.plans.ceilings()),
    ]);
    if (under.allowed) return undefined;
    const binding = under.binding;
    return {
      account: entry.account,
      plan: candidateTerms.policy.name,
      shadow: candidateTerms.shadow,
      refusal: under.kind === 'banned' || binding === undefined ? 'banned' : binding.name,
      ...(binding?.layer === undefined ? {} : { layer: binding.layer }),
      retryAt: under.retryAt === undefined ? null : Math.ceil(under.retryAt / 1000),
      now: nextOf(current),
    };
  }
}
