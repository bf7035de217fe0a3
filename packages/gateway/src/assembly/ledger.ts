import {
  createAccountBook,
  createMemoryLedger,
  createRedisLedger,
  ledgerInPrimary,
  recordLedger,
  type AccountBook,
  type Ledger,
  type RecorderOptions,
} from '../admin/index.js';
import type { GatewayConfig } from '../config/index.js';
import type { Port } from '../ipc/index.js';
import type { Plans } from '../plans/index.js';
import type { Calendar } from '../ratelimit/index.js';
import type { RedisClient } from '../redis/index.js';
import type { Limits, LimitsEngine } from './limits.js';
import type { Placement } from './placement.js';

type LimitsOn = Extract<GatewayConfig['rateLimits'], { mode: 'on' }>;

/** The account book over `ledger`, reading the limits in `engine`: what the admin API answers from. */
export function bookOf(config: LimitsOn, parts: { engine: LimitsEngine; plans: Plans; calendar: Calendar; now: () => number }, ledger: Ledger): AccountBook {
  const { engine } = parts;
  return createAccountBook(
    {
      limiter: engine.limiter,
      plans: parts.plans,
      calendar: parts.calendar,
      now: parts.now,
      shadowPlans: config.shadowPlans,
      liftBan: (subject, keyId) => engine.liftBan(subject, keyId),
    },
    ledger,
  );
}

export interface WorkerLedgerDeps {
  readonly placement: Placement;
  readonly port?: Port | undefined;
  readonly redis?: { readonly client: RedisClient; readonly prefix: string } | undefined;
  /** The limits' clock. */
  readonly now: () => number;
  /** For tests: the clock that dates the decisions recorded (production dates them by their own time). */
  readonly recordNow?: (() => number) | undefined;
  /** The gateway whose decisions are recorded. */
  readonly source: object;
}

/**
 * A worker's part of the admin API's ledger (see `admin/ledger/`): its decisions written where the
 * placement keeps the ledger (Redis, the primary over `port`, or this process), and, only where
 * it is this process's, the book that the primary's admin API asks this worker to read.
 */
export function assembleWorkerLedger(config: GatewayConfig['rateLimits'], limits: Limits | undefined, deps: WorkerLedgerDeps) {
  const where = deps.placement.ledger;
  if (where === undefined || limits === undefined || config.mode === 'off') return undefined;
  let sink: RecorderOptions['ledger'];
  let book: AccountBook | undefined;
  if (where === 'redis' && deps.redis !== undefined) sink = createRedisLedger(deps.redis.client, deps.redis.prefix);
  else if (where === 'primary' && deps.port !== undefined) sink = ledgerInPrimary(deps.port);
  else {
    const ledger = createMemoryLedger();
    sink = ledger;
    if (limits.engine !== undefined) book = bookOf(config, { ...limits, engine: limits.engine, now: deps.now }, ledger);
  }
  const stop = recordLedger({ ledger: sink, calendar: limits.calendar, source: deps.source, ...(deps.recordNow === undefined ? {} : { now: deps.recordNow }) });
  return { book, stop };
}
