import { createAccountBook, createMemoryLedger, createRedisLedger, ledgerInPrimary, recordLedger, type AccountBook, type Ledger } from '../admin/index.js';
import type { GatewayConfig } from '../config/index.js';
import type { RedisClient } from '../redis/index.js';
import type { LimitsWiring } from './rate-limiting.js';

export interface LedgerDeps {
  readonly limits: LimitsWiring;
  /** The shared state, with `REDIS_URL`: the ledger is there too. */
  readonly redis?: { readonly client: RedisClient; readonly prefix: string } | undefined;
  /** A worker of several without Redis: the primary keeps the limits, and the ledger beside them. */
  readonly primary?: Parameters<typeof ledgerInPrimary>[0] | undefined;
  /** The limits' clock (the process's, or the tests'). */
  readonly now: () => number;
  /** For tests: the clock that dates the decisions recorded (production dates them by their own time). */
  readonly recordNow?: (() => number) | undefined;
  /** The gateway whose decisions are recorded. */
  readonly source: object;
}

/**
 * The admin API's ledger where the limits are (see `admin/ledger/`), written from this gateway's
 * decisions, and the book that reads both here: in Redis, or in this process. A worker whose
 * limits are its primary's sends its notes there and has no book (the primary reads them).
 */
export function createLedgerWiring(config: GatewayConfig['rateLimits'], deps: LedgerDeps): { readonly book: AccountBook | undefined; stop(): void } {
  const { limits, now } = deps;
  let ledger: Ledger | undefined;
  let sink: Parameters<typeof recordLedger>[0]['ledger'];
  if (deps.redis !== undefined) sink = ledger = createRedisLedger(deps.redis.client, deps.redis.prefix);
  else if (deps.primary !== undefined) sink = ledgerInPrimary(deps.primary);
  else sink = ledger = createMemoryLedger();
  const stop = recordLedger({ ledger: sink, calendar: limits.calendar, source: deps.source, ...(deps.recordNow === undefined ? {} : { now: deps.recordNow }) });
  const { engine } = limits;
  const book =
    ledger === undefined || engine === undefined || config.mode === 'off'
      ? undefined
      : createAccountBook(
          {
            limiter: engine.limiter,
            plans: limits.plans,
            calendar: limits.calendar,
            now,
            shadowPlans: config.shadowPlans,
            liftBan: (subject, keyId) => engine.liftBan(subject, keyId),
          },
          ledger,
        );
  return { book, stop };
}
