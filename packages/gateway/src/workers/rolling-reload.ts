import { workerChannel } from './channels.js';
import { ask } from './ipc.js';
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
    const listening = pool.listening();
    const old = listening.find((member) => member.settings !== target);
    const current = listening.filter((member) => member.settings === target);
    if (old === undefined && current.length >= target.workers) {
      for (const extra of current.slice(target.workers)) pool.retire(extra);
      return undefined;
    }
    const next = pool.fork(target);
    const name = `worker ${next.worker.id} (pid ${next.pid})`;
    const started = await startedWithin(next, START_TIMEOUT_MS);
    if (started === 'timeout') return `${name} did not listen within ${START_TIMEOUT_MS / 1000} s`;
    if (!started.ok) return `${name} exited before it listened (${howItExited(started.code, started.signal)}); its reason is in the lines above`;
    // An added worker replaces none: it is held to the readiness of one that serves.
    const ready = await readyToTakeOver(pool, next, old ?? current[0]);
    if (ready !== true) {
      pool.retire(next);
      return `${name} is ${ready}`;
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
    answer = await ask(workerChannel(fresh.worker), 'readiness', ANSWER_TIMEOUT_MS);
    if (answer === true) return true;
    if (old !== undefined && (await ask(workerChannel(old.worker), 'readiness', ANSWER_TIMEOUT_MS)) !== true) return true;
    if (!pool.running() || Date.now() > deadline || fresh.state !== 'listening') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Array.isArray(answer) ? `not ready: ${answer.join(', ')}` : 'no answer to its readiness';
}
