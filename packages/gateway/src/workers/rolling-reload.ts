import type { Logger } from 'pino';
import { QUESTION } from '../ipc/index.js';
import { howItExited, startedWithin, type Generation, type Member, type Pool } from './members.js';

/** How long a new worker may take to listen, and then to be ready. */
const START_TIMEOUT_MS = 30_000;
const READY_TIMEOUT_MS = 30_000;
/** How long a worker may take to say whether it is ready (its own checks are bounded to about 1 s). */
const ANSWER_TIMEOUT_MS = 2_000;

/**
 * Replaces every listening worker that does not run `target`, one at a time: a new worker with
 * `target` listens and is ready, then the old one hands over. Then the count is made
 * `target.workers`, adding workers (held to the same readiness) or retiring some. Resolves with
 * what went wrong, or `undefined`. The same call with the previous settings undoes a partial roll.
 */
export async function rollTo(pool: Pool, target: Generation): Promise<string | undefined> {
  for (;;) {
    if (!pool.running()) return 'the gateway is stopping';
    const failure = pool.failure();
    if (failure !== undefined) return failure;
    const listening = pool.listening();
    const old = listening.find((member) => member.settings !== target);
    const current = listening.filter((member) => member.settings === target);
    if (old === undefined && current.length >= target.workers) {
      for (const extra of current.slice(target.workers)) pool.retire(extra);
      return undefined;
    }
    const next = pool.fork(target);
    const name = `worker ${next.id} (pid ${next.pid})`;
    const started = await startedWithin(next, START_TIMEOUT_MS);
    if (started === 'timeout') return `${name} did not listen within ${START_TIMEOUT_MS / 1000} s`;
    if (!started.ok) return `${name} exited before it listened (${howItExited(started.code, started.signal)}); its reason is in the lines above`;
    if (pool.failure() !== undefined) return pool.failure();
    // An added worker replaces none: it is held to the readiness of one that serves.
    const ready = await readyToTakeOver(pool, next, old ?? current[0]);
    if (ready !== true) {
      if (next.state === 'listening') pool.retire(next);
      return pool.failure() ?? `${name} is ${ready}`;
    }
    if (old !== undefined) pool.retire(old);
  }
}

/**
 * Whether `fresh` may take over from `old` (or join it): it is ready, or `old` is not ready either
 * (a dependency they share is down: the hand-over loses nothing). Asked every 100 ms up to a bound.
 */
async function readyToTakeOver(pool: Pool, fresh: Member, old: Member | undefined): Promise<true | string> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let answer: unknown;
  for (;;) {
    answer = await fresh.port.ask(QUESTION.readiness, ANSWER_TIMEOUT_MS);
    if (answer === true) return true;
    if (old !== undefined && (await old.port.ask(QUESTION.readiness, ANSWER_TIMEOUT_MS)) !== true) return true;
    if (!pool.running() || pool.failure() !== undefined || Date.now() > deadline || fresh.state !== 'listening') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Array.isArray(answer) ? `not ready: ${answer.join(', ')}` : 'no answer to its readiness';
}

/**
 * A reload (SIGHUP): rolls the workers to `next`; if that fails (a new worker does not start, is
 * not ready, or dies before the roll is over), rolls them back to the settings in force before.
 * Resolves with the settings in force after it.
 */
export async function reloadWorkers(pool: Pool, previous: Generation, next: Generation, logger: Logger): Promise<Generation> {
  logger.info({ workers: next.workers }, 'gateway reloading');
  pool.inForce(next, next);
  const problem = await rollTo(pool, next);
  pool.inForce(next, undefined);
  if (problem === undefined) {
    const serving = pool.listening();
    logger.info({ workers: serving.length, pids: serving.map((member) => member.pid) }, 'gateway reloaded');
    return next;
  }
  if (!pool.running()) return next;
  logger.error({ problem }, `reload failed: ${problem}; the workers keep the settings they had`);
  pool.inForce(previous, undefined);
  const back = await rollTo(pool, previous);
  if (back !== undefined) logger.error({ problem: back }, `returning to the previous settings failed too: ${back}`);
  return previous;
}
