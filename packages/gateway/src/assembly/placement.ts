import type { GatewayConfig } from '../config/index.js';

/**
 * Where a process keeps a piece of the gateway's state: in Redis (shared by every instance), in
 * the primary (shared by its workers, asked over their channels), or in the one worker that
 * serves (its own memory: asking a primary would cost it 10 to 14 µs of CPU a request, see
 * docs/limits.md, with no other worker to share with).
 */
export type Place = 'redis' | 'primary' | 'worker';

/**
 * Where a gateway's state lives, decided once by its primary for the workers it forks (and
 * given to each with its settings: a worker never works it out again), so that every process
 * agrees on it.
 */
export interface Placement {
  /** The workers the primary runs (`WORKERS`, with `auto` worked out on the primary's machine). */
  readonly workers: number;
  /** The limits' counters; `undefined` with `RATE_LIMITS=off`. */
  readonly limits: Place | undefined;
  /**
   * The counters of the `local` failure policy, used while Redis is away: one share of the plan
   * for the whole gateway, so with several workers the primary's. `undefined` unless the limits
   * are in Redis with `RATE_LIMIT_ON_REDIS_FAILURE=local`.
   */
  readonly fallback: Exclude<Place, 'redis'> | undefined;
  /**
   * The admin API's ledger and account book (with `ADMIN_TOKEN_FILE`): beside the limits, read by
   * the primary, which serves the admin listener. `undefined` without the admin API or limits.
   */
  readonly ledger: Place | undefined;
}

/** Where `config`'s state lives with `workers` workers. */
export function placementOf(config: GatewayConfig, workers: number): Placement {
  const inMemory: Place = workers > 1 ? 'primary' : 'worker';
  const limits: Place | undefined = config.rateLimits.mode === 'off' ? undefined : config.redis === undefined ? inMemory : 'redis';
  const fallback = limits === 'redis' && config.rateLimits.mode === 'on' && config.rateLimits.onRedisFailure === 'local' ? inMemory : undefined;
  return { workers, limits, fallback: fallback as Placement['fallback'], ledger: config.admin === undefined ? undefined : limits };
}

/** The variable that carries a worker's placement from its primary, set at fork. */
export const PLACEMENT_VARIABLE = 'GATEWAY_PLACEMENT';

const PLACES: readonly (Place | undefined)[] = ['redis', 'primary', 'worker', undefined];

/** The placement as a worker reads it at its start (`PLACEMENT_VARIABLE`); `undefined` when it is not one. */
export function placementFrom(text: string | undefined): Placement | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const given = value as Record<string, unknown>;
  const placed = (name: string) => PLACES.includes(given[name] as Place | undefined);
  if (typeof value !== 'object' || value === null || !Number.isInteger(given.workers) || (given.workers as number) < 1) return undefined;
  if (!placed('limits') || !placed('fallback') || !placed('ledger') || given.fallback === 'redis') return undefined;
  return { workers: given.workers as number, limits: given.limits as Place, fallback: given.fallback as Placement['fallback'], ledger: given.ledger as Place };
}
