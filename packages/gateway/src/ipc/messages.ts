/**
 * Every message the gateway's processes send each other, by `type`: one list, so that no two
 * protocols can take the same name and a reader finds them all here. Each message is an object
 * with a `type` from this list; what else it carries is defined beside the code that sends it
 * (the file named on each line). Only arrays, objects, strings, numbers, booleans and `null`
 * travel, so both serializations of `node:cluster` (`json`, `advanced`) and the in-memory channel
 * of the tests carry them unchanged.
 */
export const MESSAGE = {
  /** A question, and its answer (`port.ts`: `ask`, `answer`). */
  ask: 'gateway:ask',
  reply: 'gateway:reply',
  /** A worker listens, with the details of the `gateway listening` line (`workers/worker.ts`). */
  listening: 'gateway:listening',
  /** The primary tells a worker to hand its connections over and exit (`workers/supervisor.ts`). */
  handOver: 'gateway:hand-over',
  /** A worker about to exit after a hand-over: its counters, which the totals keep (`workers/worker.ts`). */
  finalMetrics: 'gateway:final-metrics',
  /** A worker's rate-limit checks, and the primary's decisions (`ratelimit/primary/protocol.ts`). */
  limitsCheck: 'gateway:limits-check',
  limitsDecided: 'gateway:limits-decided',
  /** A worker's ledger notes, for the primary's ledger (`admin/ledger/ipc-ledger.ts`). */
  ledgerNotes: 'gateway:ledger-notes',
} as const;

export type MessageType = (typeof MESSAGE)[keyof typeof MESSAGE];

/**
 * The questions one process asks another (`MESSAGE.ask`): a worker's own readiness (primary to
 * worker: `true`, or the names of what is not ready), its metrics (primary to worker: prom-client's
 * JSON), the readiness of every other worker (worker to primary: the names of those that are
 * not), and the admin API's questions to the one worker that keeps the limits (primary to worker,
 * `admin/worker-book.ts`), and what Redis had counted for some accounts as the workers saw it last
 * (`redis-views`: worker to primary, the other workers' views combined; primary to worker, its
 * own; see `ratelimit/front/redis-views.ts`).
 */
export const QUESTION = {
  readiness: 'readiness',
  metrics: 'metrics',
  othersReadiness: 'others-readiness',
  admin: 'admin',
  redisViews: 'redis-views',
} as const;

export type Question = (typeof QUESTION)[keyof typeof QUESTION];

/** A message of the list: its `type`, and what its sender puts beside it. */
export interface Message {
  readonly type: MessageType;
}
