import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryDir } from '@animal-store/testkit';

/** A minute and a day limit, as a plans file writes them. */
export interface TestLimits {
  readonly minute: number;
  readonly day: number;
}

/** A plan as a test writes it: its limits, and the units its operations cost (`cost`). */
export interface TestPlan extends TestLimits {
  readonly cost?: Readonly<Record<string, number>>;
}

/** What a test changes in its plans file; anything left out is as in the shipped file. */
export interface TestPlans {
  readonly plans?: Readonly<Partial<Record<'free' | 'pro' | 'business' | 'enterprise', TestPlan>>>;
  readonly anonymous?: TestLimits;
  /** Left out, the file has no `ban` (the shipped file has one: tests say which they want). */
  readonly ban?: { readonly strikes: number; readonly strikeWindowSeconds: number; readonly banSeconds: number };
  readonly accounts?: Readonly<Record<string, TestLimits>>;
  /** Ceilings per operation, shared by every caller (left out: none). */
  readonly operations?: Readonly<Record<string, TestLimits>>;
}

/** The shipped plans' limits (packages/gateway/plans/plans.json), which most tests count against. */
const SHIPPED_PLANS = {
  free: { minute: 60, day: 1000 },
  pro: { minute: 300, day: 10000 },
  business: { minute: 1000, day: 100000 },
  enterprise: { minute: 5000, day: 2000000 },
};

/**
 * Writes a plans file in a temporary directory and returns its path (for `PLANS_FILE`): the
 * shipped limits, anonymous 30 a minute, no accounts, with `overrides` on top (a plan named there
 * replaces that plan's limits).
 */
export function writePlansFile(overrides: TestPlans = {}): string {
  const file = join(temporaryDir('gw-plans-'), 'plans.json');
  const content = {
    plans: { ...SHIPPED_PLANS, ...overrides.plans },
    anonymous: overrides.anonymous ?? { minute: 30, day: 1000 },
    ...(overrides.ban === undefined ? {} : { ban: overrides.ban }),
    accounts: overrides.accounts ?? {},
    ...(overrides.operations === undefined ? {} : { operations: overrides.operations }),
  };
  writeFileSync(file, JSON.stringify(content));
  return file;
}
