import { CheckFaultError } from '../limiter.js';

/** A script call that Redis started after its deadline: nothing was decided or charged. */
export class LateDecisionError extends Error {
  constructor() {
    super('Redis started the rate-limit call after its budget: nothing was charged');
    this.name = 'LateDecisionError';
  }
}

/**
 * A call that failed before it charged anything, because of what one of its requests holds: the
 * call could not be built, or the script raised an error (it writes only at its end).
 */
export class UnchargedError extends Error {
  constructor(cause: unknown) {
    super('the call failed and charged nothing', { cause });
    this.name = 'UnchargedError';
  }
}

/** One request's result: its decision, or what failed it. */
export type Outcome<R> = { readonly decision: R } | { readonly error: unknown };

/**
 * `decide(items)` in one call, and each item's outcome. A call that fails with `UnchargedError`
 * is halved and each half tried again, until the items that fail are alone: they fail with
 * `CheckFaultError`, and the others of the batch are decided (a failing item costs about two calls
 * per halving, log2 of the batch). Any other error (Redis down, late, slow) fails the whole call.
 */
export async function isolateFaults<T, R>(items: readonly T[], decide: (items: readonly T[]) => Promise<readonly R[]>): Promise<Outcome<R>[]> {
  try {
    return (await decide(items)).map((decision) => ({ decision }));
  } catch (error) {
    if (!(error instanceof UnchargedError)) return items.map(() => ({ error }));
    if (items.length === 1) return [{ error: new CheckFaultError(error.cause) }];
    const half = Math.ceil(items.length / 2);
    const [head, tail] = await Promise.all([isolateFaults(items.slice(0, half), decide), isolateFaults(items.slice(half), decide)]);
    return [...head, ...tail];
  }
}
