import { readPlansFile } from '../plans/index.js';
import { UsageError } from './usage-error.js';

/**
 * The plans a key may name: those of the plans file the gateway reads (the CLI's `PLANS_FILE`,
 * resolved as the gateway resolves it; else the shipped file), read and checked as the gateway
 * reads it. Throws a `UsageError` saying why it cannot be read.
 */
export function planNamesOf(file: string): { readonly file: string; readonly names: readonly string[] } {
  try {
    return { file, names: Object.keys(readPlansFile(file).plans) };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * Checks that `plan` is a plan of the plans file before a key naming it is signed: the gateway
 * refuses a key whose plan its file does not have (401).
 */
export function checkPlanName(plan: string | undefined, plansFile: string, what = '--plan must be'): string {
  const { file, names } = planNamesOf(plansFile);
  if (plan === undefined || !names.includes(plan)) throw new UsageError(`${what} a plan of PLANS_FILE ${file}: ${names.join(', ')}`);
  return plan;
}
