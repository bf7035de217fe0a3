import { z } from 'zod';
import { readJsonFile } from '../sources/read-json-file.js';
import { watchFile } from '../sources/watched-file.js';
import type { KeyHolder } from './limit-key.js';
import { minuteAndDay, type BanPolicy, type Policy } from './policy.js';

/** RFC 9651 integers have at most 15 digits: a larger limit would make `RateLimit-Policy` invalid. */
export const MAX_LIMIT = 999_999_999_999_999;
const count = z.int().min(0).max(MAX_LIMIT);
const Limits = z.strictObject({ minute: count, day: count });
/** At most a day: an account's counters expire a day after its last request, and its bans with them. */
const seconds = z.int().min(1).max(86_400);
const Ban = z.strictObject({ strikes: z.int().min(1), strikeWindowSeconds: seconds, banSeconds: seconds });
/**
 * Units an operation spends of each window, by `operationId` (1 for an operation not named): a
 * positive integer, at most the plan's smallest window, or no request of it could ever pass.
 */
const Cost = z.record(z.string().min(1), z.int().min(1).max(MAX_LIMIT));
const PlanEntry = Limits.extend({ ban: Ban.optional(), cost: Cost.optional() }).superRefine((plan, context) => {
  const smallest = Math.min(plan.minute, plan.day);
  for (const [operation, units] of Object.entries(plan.cost ?? {})) {
    if (units > smallest)
      context.addIssue({ code: 'custom', path: ['cost', operation], message: `costs ${units} units, more than the plan's smallest window (${smallest})` });
  }
});

/** The plans file (`PLANS_FILE`): limits per plan, per anonymous client, and per account. */
export const PlansFile = z.strictObject({
  plans: z.strictObject({ free: PlanEntry, pro: PlanEntry, business: PlanEntry, enterprise: PlanEntry }),
  /** For requests without a valid key, per client IP (IPv6 per /64): key guessing is limited too. */
  anonymous: Limits,
  /** Default ban policy; a plan may carry its own. */
  ban: Ban.optional(),
  /** Per-account overrides (custom enterprise contracts): account → limits. */
  accounts: z.record(z.string().min(1), Limits).default({}),
});
export type PlansFile = z.infer<typeof PlansFile>;

/** Reads and validates a plans file; throws with every problem listed. */
export function readPlansFile(file: string): PlansFile {
  return readJsonFile(file, PlansFile, 'PLANS_FILE', 'is not valid');
}

function banOf(entry: { ban?: z.infer<typeof Ban> | undefined }, fallback: z.infer<typeof Ban> | undefined): BanPolicy | undefined {
  const ban = entry.ban ?? fallback;
  return ban === undefined ? undefined : { strikes: ban.strikes, strikeWindowMs: ban.strikeWindowSeconds * 1000, banMs: ban.banSeconds * 1000 };
}

/**
 * Policies from a plans file that may change while the gateway runs: the file is looked at for
 * every request (one `stat` per event-loop turn, see `watchFile`) and re-read when it changed, so
 * a plan change applies from the next request. A file that became invalid keeps the last good
 * plans (and is reported once, as a `file reload failed` event); a missing file keeps them too.
 */
export function createPlans(file: string) {
  const watched = watchFile(file, readPlansFile, { setting: 'PLANS_FILE' });
  const current = () => watched.current();
  return {
    /** The policy of a verified key: account override, else enterprise key limits, else the plan. */
    forIdentity(identity: KeyHolder): Policy {
      const p = current();
      const plan = p.plans[identity.plan];
      const override = p.accounts[identity.subject];
      const signed = identity.limits;
      const minute = override?.minute ?? signed?.minute ?? plan.minute;
      const day = override?.day ?? signed?.day ?? plan.day;
      return minuteAndDay(identity.plan, minute, day, banOf(plan, p.ban));
    },
    /** The units a request of `operationId` spends on the key's plan (see `Cost`). */
    costOf(identity: KeyHolder, operationId: string | undefined): number {
      if (operationId === undefined) return 1;
      return current().plans[identity.plan].cost?.[operationId] ?? 1;
    },
    /** The policy of a request without a valid key. */
    anonymous(): Policy {
      const { minute, day } = current().anonymous;
      return minuteAndDay('anonymous', minute, day);
    },
  };
}
export type Plans = ReturnType<typeof createPlans>;
