import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { workerChannel } from './channels.js';
import { answerQuestions, ask, isMessage } from './ipc.js';
import { exitFields, howItExited, type Generation, type Member, type Pool, type Started } from './members.js';
import { rollTo as roll } from './rolling-reload.js';

export interface SupervisorOptions {
  readonly logger: Logger;
  /** Called for every worker forked, before it runs: where a part of the primary that serves workers attaches. */
  readonly onFork?: ((worker: Worker) => void) | undefined;
  /** A worker that handed over sends its counters before it exits: the metrics keep them in the totals. */
  readonly onFinalMetrics?: ((workerId: number, metrics: unknown) => void) | undefined;
  /** A worker exited unasked after it listened. */
  readonly onDeath?: (() => void) | undefined;
}

/** More deaths than this within `DEATH_WINDOW_MS` is a crash loop: the gateway stops (exit 1). */
export const MAX_DEATHS = 5;
export const DEATH_WINDOW_MS = 60_000;
/** How long a worker may take to answer a question (its readiness asks the upstream, bounded to 1 s). */
const ANSWER_TIMEOUT_MS = 2_000;
/** Past its own deadline, how long a stopping worker is given before SIGKILL. */
const KILL_GRACE_MS = 5_000;

/**
 * The primary's workers: forks them, announces the gateway once all listen, replaces a worker that
 * dies (and stops the gateway in a crash loop), replaces them one at a time on a reload, and
 * stops them on a signal. The workers share the primary's listening socket (node:cluster), so a
 * worker's replacement listens before the worker it replaces lets go.
 */
export function createSupervisor(options: SupervisorOptions) {
  const { logger } = options;
  const members = new Map<number, Member>();
  let current: Generation | undefined;
  let phase: 'starting' | 'running' | 'stopping' = 'starting';
  const deaths: number[] = [];
  let reloading = false;
  let pendingReload: Generation | undefined;
  let stopped: (() => void) | undefined;
  /** Set by a crash loop: the exit code the gateway stops with. */
  let failure: number | undefined;
  const failureListeners: ((code: number) => void)[] = [];

  function fork(settings: Generation): Member {
    const worker = cluster.fork(settings.overrides);
    let settle: (started: Started) => void = () => {};
    const member: Member = {
      worker,
      pid: worker.process.pid as number,
      settings,
      state: 'starting',
      listening: undefined,
      started: new Promise((resolve) => (settle = resolve)),
    };
    members.set(worker.id, member);
    options.onFork?.(worker);
    const channel = workerChannel(worker);
    answerQuestions(channel, { 'others-readiness': () => othersReadiness(worker.id) });
    worker.on('message', (message: unknown) => {
      if (isMessage(message, 'gateway:listening') && member.state === 'starting') {
        member.state = 'listening';
        member.listening = message;
        settle({ ok: true });
      } else if (isMessage(message, 'gateway:final-metrics')) options.onFinalMetrics?.(worker.id, message.metrics);
    });
    worker.on('exit', (code: number | null, signal: string | null) => {
      members.delete(worker.id);
      settle({ ok: false, code, signal });
      exited(member, code, signal);
    });
    return member;
  }

  function exited(member: Member, code: number | null, signal: string | null): void {
    if (phase === 'stopping') {
      if (members.size === 0) stopped?.();
      return;
    }
    if (member.state === 'retiring') {
      logger.info(exitFields(member, code, signal), 'worker retired');
      return;
    }
    // One that had not listened yet is reported by whoever waits for it to start.
    if (member.state !== 'listening') return;
    options.onDeath?.();
    logger.error(exitFields(member, code, signal), `worker ${member.worker.id} died (${howItExited(code, signal)}); starting another`);
    void replaceDead();
  }

  /** Counts a death; false when it makes a crash loop (then the gateway is stopping). */
  function countDeath(): boolean {
    const now = Date.now();
    deaths.push(now);
    while ((deaths[0] as number) < now - DEATH_WINDOW_MS) deaths.shift();
    if (deaths.length <= MAX_DEATHS) return true;
    logger.fatal(
      { deaths: deaths.length, windowMs: DEATH_WINDOW_MS },
      `gateway stopping: ${deaths.length} workers died within ${DEATH_WINDOW_MS / 1000} s, a crash loop; see the lines above for why`,
    );
    fail(1);
    return false;
  }

  async function replaceDead(): Promise<void> {
    while (phase === 'running' && current !== undefined && countDeath()) {
      const fresh = fork(current);
      const started = await fresh.started;
      if (started.ok) {
        logger.info({ worker: fresh.worker.id, pid: fresh.pid }, 'worker replaced');
        return;
      }
      logger.error(exitFields(fresh, started.code, started.signal), 'the new worker exited before it listened');
    }
  }

  function fail(code: number): void {
    failure = code;
    for (const listener of failureListeners) listener(code);
  }

  /** The workers that are not ready, asked through the primary by a worker's `/readyz`; empty when all are. */
  async function othersReadiness(askerId: number): Promise<string[]> {
    const others = [...members.values()].filter((member) => member.worker.id !== askerId && member.state !== 'retiring');
    const answers = await Promise.all(
      others.map(async (member) => {
        const name = `worker ${member.worker.id}`;
        // Until the gateway is up, a worker still starting is not ready; later it is a replacement, not yet serving.
        if (member.state === 'starting') return phase === 'starting' ? `${name} (starting)` : undefined;
        const answer = await ask(workerChannel(member.worker), 'readiness', ANSWER_TIMEOUT_MS);
        if (answer === true) return undefined;
        return Array.isArray(answer) ? `${name} (${answer.join(', ')})` : `${name} (no answer)`;
      }),
    );
    return answers.filter((down): down is string => down !== undefined);
  }

  /** Tells a listening worker to hand its connections over and exit; SIGKILL if it is still there well past its deadline. */
  function retire(member: Member): void {
    member.state = 'retiring';
    workerChannel(member.worker).send({ type: 'gateway:hand-over' });
    const kill = setTimeout(() => member.worker.process.kill('SIGKILL'), member.settings.config.shutdownTimeoutMs + KILL_GRACE_MS);
    kill.unref();
    member.worker.once('exit', () => clearTimeout(kill));
  }

  function listeningMembers(): Member[] {
    return [...members.values()].filter((member) => member.state === 'listening');
  }

  const pool: Pool = { fork, retire, listening: listeningMembers, running: () => phase === 'running' };

  /** Rolls the workers over to `target`: the settings in force from now on, also for replacements. */
  function rollTo(target: Generation): Promise<string | undefined> {
    current = target;
    return roll(pool, target);
  }

  return {
    /**
     * Forks the workers and resolves once every one listens, after the `gateway listening` line.
     * Rejects with the exit code the gateway must stop with when one exits before it listens.
     */
    async start(settings: Generation): Promise<void> {
      current = settings;
      // How new connections reach the workers, fixed for the process's life at the first fork.
      // Several workers: the primary accepts each and hands it to the next worker in turn (round
      // robin: an even spread, where the kernel would give most of a burst to one worker). One
      // worker: it accepts on the primary's socket itself, as a single process does. Handing
      // over costs an IPC round trip per connection, one at a time per worker: under a CPU hog
      // a burst of 3,000 new connections took 60 s instead of 11, and its requests no longer
      // shared Redis round trips (ratelimit-burst.test.ts).
      cluster.schedulingPolicy = settings.workers === 1 ? cluster.SCHED_NONE : cluster.SCHED_RR;
      const forked = Array.from({ length: settings.workers }, () => fork(settings));
      await new Promise<void>((resolve, reject) => {
        failureListeners.push((code) => reject(code));
        let waiting = forked.length;
        for (const member of forked) {
          void member.started.then((started) => {
            if (phase !== 'starting') return;
            if (!started.ok) {
              // 2: invalid settings or files (exitWithProblems), 1: a listen failure; a signal or a
              // clean exit before listening counts as a failure too.
              fail(started.code !== null && started.code !== 0 ? started.code : 1);
              return;
            }
            if (--waiting === 0) resolve();
          });
        }
      });
      phase = 'running';
      const [first] = forked;
      const { url, details } = first?.listening ?? { url: '', details: {} };
      logger.info({ url, ...details, workers: forked.length, pids: forked.map((member) => member.pid) }, 'gateway listening');
    },

    /** Calls `listener` with the exit code when the gateway must stop on its own (a crash loop). */
    onFailure(listener: (code: number) => void): void {
      failureListeners.push(listener);
      if (failure !== undefined) listener(failure);
    },

    /**
     * Rolls the workers over to `next` (SIGHUP); a reload asked during another runs after it.
     * Resolves with the settings in force once this reload (and any queued behind it) is over;
     * `undefined` when it was queued behind another (that one's caller learns the outcome).
     */
    async reload(next: Generation): Promise<Generation | undefined> {
      if (phase !== 'running') {
        logger.warn({}, `reload ignored: the gateway is ${phase}`);
        return current;
      }
      if (reloading) {
        pendingReload = next;
        logger.info({}, 'reload queued: another is under way');
        return undefined;
      }
      reloading = true;
      const previous = current as Generation;
      logger.info({ workers: next.workers }, 'gateway reloading');
      const problem = await rollTo(next);
      if (problem === undefined) {
        const serving = listeningMembers();
        logger.info({ workers: serving.length, pids: serving.map((member) => member.pid) }, 'gateway reloaded');
      } else if (phase === 'running') {
        logger.error({ problem }, `reload failed: ${problem}; the workers keep the settings they had`);
        const back = await rollTo(previous);
        if (back !== undefined) logger.error({ problem: back }, `returning to the previous settings failed too: ${back}`);
      }
      reloading = false;
      const again = pendingReload;
      pendingReload = undefined;
      if (again !== undefined) return this.reload(again);
      return current;
    },

    /** Workers that listen and serve, the oldest first (none handing over in a reload). */
    listening(): Worker[] {
      return listeningMembers().map((member) => member.worker);
    },

    /** Workers that serve or finish serving: those whose counters count. */
    serving(): Worker[] {
      return [...members.values()].filter((member) => member.state !== 'starting').map((member) => member.worker);
    },

    /** SIGTERM to every worker (each drains within SHUTDOWN_TIMEOUT_MS); resolves when all have exited. */
    stop(): Promise<void> {
      phase = 'stopping';
      return new Promise<void>((resolve) => {
        if (members.size === 0) return resolve();
        stopped = resolve;
        for (const { worker, settings } of members.values()) {
          worker.process.kill('SIGTERM');
          const kill = setTimeout(() => worker.process.kill('SIGKILL'), settings.config.shutdownTimeoutMs + KILL_GRACE_MS);
          kill.unref();
          worker.once('exit', () => clearTimeout(kill));
        }
      });
    },
  };
}

export type Supervisor = ReturnType<typeof createSupervisor>;
