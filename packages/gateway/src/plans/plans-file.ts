import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { problemLines } from '@animal-store/http-kit';
import { z } from 'zod';
import type { PlansVersion } from '../events/index.js';
import { PlanName } from '../identity/index.js';
import { parseJsonText } from '../sources/read-json-file.js';

/**
 * `record[name]` when the record has it as its own: a name from a file or a key (`constructor`,
 * `__proto__`, `toString`) must never find what every object inherits.
 */
export const own = <T>(record: Readonly<Record<string, T>> | undefined, name: string): T | undefined =>
  record !== undefined && Object.hasOwn(record, name) ? record[name] : undefined;

/** RFC 9651 integers have at most 15 digits: a larger limit would make `RateLimit-Policy` invalid. */
const MAX_LIMIT = 999_999_999_999_999;

const count = z.int().min(0).max(MAX_LIMIT);
const Limits = z.strictObject({ minute: count, day: count });
/** At most a day: an account's counters expire a day after its last request, and its bans with them. */
const seconds = z.int().min(1).max(86_400);
const Ban = z.strictObject({ strikes: z.int().min(1), strikeWindowSeconds: seconds, banSeconds: seconds });
/** Units an operation spends of each window, by `operationId` (1 for an operation not named). */
const Cost = z.record(z.string().min(1), z.int().min(1).max(MAX_LIMIT));

const PlanEntry = z
  .strictObject({
    minute: count,
    day: count,
    /** A calendar-month quota (`QUOTA_TIME_ZONE`), kept apart from the sliding windows. */
    month: count.optional(),
    cost: Cost.optional(),
    /** Computed and charged, never enforced (see `SHADOW_PLANS`). */
    shadow: z.boolean().optional(),
    ban: Ban.optional(),
  })
  .superRefine((plan, context) => {
    // A cost above the smallest window could never pass: the plan would refuse that operation always.
    const smallest = Math.min(plan.minute, plan.day, plan.month ?? Infinity);
    for (const [operation, units] of Object.entries(plan.cost ?? {})) {
      if (units > smallest)
        context.addIssue({ code: 'custom', path: ['cost', operation], message: `costs ${units} units, more than the plan's smallest window (${smallest})` });
    }
  });

type AccountTerms = z.infer<typeof Account>;
const WINDOWS = ['minute', 'day', 'month'] as const;

/**
 * A cost above a window of the account's own could never pass: that operation would be refused
 * always, and without `Retry-After`. The account's plan is its `plan`, or else any plan of the
 * file (a key may name any). A window of 0 is left alone: it refuses everything, which is what it says.
 */
function costsFitAccount(file: z.infer<typeof PlansShape>, account: string, terms: AccountTerms, context: z.RefinementCtx) {
  for (const window of WINDOWS) {
    const limit = terms[window];
    if (limit === undefined || limit === 0) continue;
    for (const planName of terms.plan === undefined ? Object.keys(file.plans) : [terms.plan]) {
      for (const [operation, units] of Object.entries(own(file.plans, planName)?.cost ?? {})) {
        if (units > limit)
          context.addIssue({
            code: 'custom',
            path: ['accounts', account, window],
            message: `${limit} is less than ${operation}'s cost on plan ${planName} (${units} units): the account could never call it`,
          });
      }
    }
  }
}

/**
 * At most this many ceilings: `GET /v1/usage` reads every one (in Redis, in one script call) and
 * lists it in its body, about 70 bytes each.
 */
export const MAX_CEILINGS = 5_000;

/** A ceiling on one operation, shared by every caller: at least one window. */
const Ceiling = z
  .strictObject({ minute: count.optional(), day: count.optional(), month: count.optional() })
  .refine((ceiling) => Object.keys(ceiling).length > 0, 'names no window (minute, day or month)');

/** An account's own terms: another plan, limits of its own, a shadow switch. */
const Account = z.strictObject({
  plan: z.string().min(1).optional(),
  minute: count.optional(),
  day: count.optional(),
  month: count.optional(),
  shadow: z.boolean().optional(),
});

const PlansShape = z.strictObject({
  /** The plans, by any names: a key names one (the gateway refuses a key naming none of them), an account may be given one. */
  plans: z.record(PlanName, PlanEntry).refine((plans) => Object.keys(plans).length > 0, 'holds no plan'),
  /** Ceilings per operation, shared by all callers: a layer above every key's plan. */
  operations: z
    .record(z.string().min(1), Ceiling)
    .refine((ceilings) => Object.keys(ceilings).length <= MAX_CEILINGS, `has more than ${MAX_CEILINGS} ceilings (GET /v1/usage reads and lists each)`)
    .default({}),
  /** For requests without a valid key, per client IP (IPv6 per /64): key guessing is limited too. */
  anonymous: Limits,
  /** Default ban policy; a plan may carry its own. */
  ban: Ban.optional(),
  /** Per-account terms (custom contracts, a trial of a new plan): account → its terms. */
  accounts: z.record(z.string().min(1), Account).default({}),
});

/** The plans file (`PLANS_FILE`): limits per plan, per operation, per anonymous client, per account. */
export const PlansFile = PlansShape.superRefine((file, context) => {
  for (const [account, terms] of Object.entries(file.accounts)) {
    if (terms.plan !== undefined && own(file.plans, terms.plan) === undefined) {
      context.addIssue({ code: 'custom', path: ['accounts', account, 'plan'], message: `names no plan of the file (${terms.plan})` });
    } else costsFitAccount(file, account, terms, context);
  }
});
export type PlansFile = z.infer<typeof PlansFile>;

/** What the file is checked against beyond its shape: the API's operations. */
export interface PlansContext {
  /** The operationIds of the API document: `cost` and `operations` may name only these. */
  readonly operations?: ReadonlySet<string>;
  /** Why operation ceilings cannot be kept (a Redis Cluster), or undefined when they can. */
  readonly noCeilings?: string;
}

/** Reads and validates a plans file; throws with every problem listed. */
export function readPlansFile(file: string, context: PlansContext = {}): PlansFile {
  return loadPlansFile(file, context).plans;
}

/** A plans file read and validated, with the version it is (see `loadPlansFile`). */
export interface LoadedPlans {
  readonly plans: PlansFile;
  readonly version: PlansVersion;
}

/**
 * `readPlansFile`, and which version of the file it read: the SHA-256 of its bytes (the first 16
 * hex digits: equal on every instance that read the same content) and its modification time.
 */
export function loadPlansFile(file: string, context: PlansContext = {}): LoadedPlans {
  let bytes: Buffer;
  let modifiedMs: number;
  try {
    modifiedMs = statSync(file).mtimeMs;
    bytes = readFileSync(file);
  } catch (error) {
    throw new Error(`PLANS_FILE ${file}: ${(error as Error).message}`);
  }
  const plans = parseJsonText(bytes.toString('utf8'), file, PlansFile.superRefine(inContext(context)), 'PLANS_FILE', 'is not valid');
  return { plans, version: { hash: createHash('sha256').update(bytes).digest('hex').slice(0, 16), modified: new Date(modifiedMs).toISOString() } };
}

/**
 * A candidate plans file's content, checked as `loadPlansFile` checks the file (its shape, its
 * rules, and `context`) without putting it in force: the plans it holds, or every problem, one a
 * line (`path: message`, or why it is not JSON).
 */
export function checkPlansText(text: string, context: PlansContext = {}): { readonly plans: PlansFile } | { readonly problems: readonly string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { problems: [`not JSON: ${(error as Error).message}`] };
  }
  const parsed = PlansFile.superRefine(inContext(context)).safeParse(json);
  return parsed.success ? { plans: parsed.data } : { problems: problemLines(parsed.error) };
}

function inContext(context: PlansContext) {
  return (file: PlansFile, issues: z.RefinementCtx) => {
    const known = context.operations;
    const unknown = (path: (string | number)[], operation: string) => {
      if (known !== undefined && !known.has(operation))
        issues.addIssue({ code: 'custom', path, message: `names no operation of the API document (${operation})` });
    };
    for (const [name, plan] of Object.entries(file.plans))
      for (const operation of Object.keys(plan.cost ?? {})) unknown(['plans', name, 'cost', operation], operation);
    for (const operation of Object.keys(file.operations)) {
      unknown(['operations', operation], operation);
      if (context.noCeilings !== undefined) issues.addIssue({ code: 'custom', path: ['operations', operation], message: context.noCeilings });
    }
  };
}
