import type { Logger } from 'pino';
import { PLACEMENT_VARIABLE } from '../assembly/placement.js';
import { crashLoop, createDeathCount, DEATH_WINDOW_MS } from './deaths.js';
import { allListening, exitFields, howItExited, type Generation, type Member, type Pool } from './members.js';
import { reloadWorkers } from './rolling-reload.js';
import { scheduleConnections, spawnClusterWorker, type Spawn } from './spawn.js';
import { createWorkerMember, retireMember, stopMember } from './worker-member.js';

export interface SupervisorOptions {
  readonly logger: Logger;
  /** Called for every worker forked, before it runs: where the primary's services attach to its port. */
  readonly onFork?: ((member: Member) => void) | undefined;
  /** A worker that handed over sends its counters before it exits: the metrics keep them in the totals. */
  readonly onFinalMetrics?: ((workerId: number, metrics: unknown) => void) | undefined;
  /** A worker exited unasked after it listened (not one of a reload under way, whose death fails it). */
  readonly onDeath?: (() => void) | undefined;
  /** How a worker is started: node:cluster's fork (tests drive workers of their own). */
  readonly spawn?: Spawn | undefined;
  /** The clock of the crash-loop count; tests inject one. */
  readonly now?: (() => number) | undefined;
}

/**
 * The primary's workers: forks them, announces the gateway once all listen, replaces a worker that
 * dies (and stops the gateway in a crash loop), replaces them one at a time on a reload, and
 * stops them on a signal. The workers share the primary's listening socket (node:cluster), so a
 * worker's replacement listens before the worker it replaces lets go.
 *
 * One change of the workers at a time: the start, a replacement, a reload each wait for the one
 * before (`serially`), so none counts workers another is still starting, and the gateway never
 * runs more than `WORKERS` (but for a reload's one extra, between a new worker and the old one it
 * replaces). A worker of a reload's new settings that dies before the reload is over fails it:
 * the workers go back to the settings in force, and its death is the reload's, not a crash.
 */
export function createSupervisor(options: SupervisorOptions) {
  const { logger } = options;
  const spawn = options.spawn ?? spawnClusterWorker;
  const members = new Map<number, Member>();
  /** The settings in force: replacements are forked with them. */
  let current: Generation | undefined;
  let phase: 'starting' | 'running' | 'stopping' = 'starting';
  const deaths = createDeathCount(options.now);
  /** The settings a reload under way rolls the workers to, and why it must stop, once it must. */
  let rolling: { readonly target: Generation; failure: string | undefined } | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let queuedReload: { next: Generation } | undefined;
  let stopped: (() => void) | undefined;
  /** Set by a crash loop: the exit code the gateway stops with. */
  let failure: number | undefined;
  const failureListeners: ((code: number) => void)[] = [];

  /** Runs `task` once every change of the workers asked before it is over. */
  function serially<T>(task: () => Promise<T>): Promise<T> {
    const run = queue.then(task);
    queue = run.catch(() => {});
    return run;
  }

  function fork(settings: Generation): Member {
    // Each worker is told where the state lives: it never works it out again (WORKERS=auto, say).
    const member = createWorkerMember(spawn({ ...settings.overrides, [PLACEMENT_VARIABLE]: JSON.stringify(settings.placement) }), settings, {
      onFinalMetrics: options.onFinalMetrics,
      onExit: (code, signal) => {
        members.delete(member.id);
        exited(member, code, signal);
      },
    });
    members.set(member.id, member);
    options.onFork?.(member);
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
    const how = howItExited(code, signal);
    if (rolling !== undefined && member.settings === rolling.target) {
      rolling.failure ??= `worker ${member.id} (pid ${member.pid}) of the new settings died (${how})`;
      logger.error(exitFields(member, code, signal), `worker ${member.id} of the new settings died (${how}); the reload goes back to the settings in force`);
      return;
    }
    options.onDeath?.();
    logger.error(exitFields(member, code, signal), `worker ${member.id} died (${how}); starting another`);
    void serially(() => replaceDead());
  }

  /** Forks workers of the settings in force until there are `WORKERS` again, each counted as a death's replacement. */
  async function replaceDead(): Promise<void> {
    while (phase === 'running' && current !== undefined && [...members.values()].filter((member) => member.state !== 'retiring').length < current.workers) {
      if (!deaths.count()) {
        logger.fatal({ deaths: deaths.recent, windowMs: DEATH_WINDOW_MS }, crashLoop(deaths.recent));
        return fail(1);
      }
      const fresh = fork(current);
      const started = await fresh.started;
      if (started.ok) logger.info({ worker: fresh.id, pid: fresh.pid }, 'worker replaced');
      else logger.error(exitFields(fresh, started.code, started.signal), 'the new worker exited before it listened');
    }
  }

  function fail(code: number): void {
    failure = code;
    for (const listener of failureListeners) listener(code);
  }

  const listening = (): Member[] => [...members.values()].filter((member) => member.state === 'listening');
  const pool: Pool = {
    fork,
    retire: retireMember,
    listening,
    running: () => phase === 'running',
    inForce: (settings, rollingTo) => {
      current = settings;
      rolling = rollingTo === undefined ? undefined : { target: rollingTo, failure: undefined };
    },
    failure: () => rolling?.failure,
  };

  return {
    /**
     * Forks the workers and resolves once every one listens, after the `gateway listening` line.
     * Rejects with the exit code the gateway must stop with when one exits before it listens.
     */
    start(settings: Generation): Promise<void> {
      return serially(async () => {
        current = settings;
        if (options.spawn === undefined) scheduleConnections(settings.workers);
        const forked = Array.from({ length: settings.workers }, () => fork(settings));
        const code = await Promise.race([allListening(forked), new Promise<number>((resolve) => failureListeners.push(resolve))]);
        // A stop that came while they started (SIGTERM once the first worker answered): it stops
        // them all, so one that exits then is no failure, and the gateway never goes back to
        // running (where a worker's exit is a death, and replaced).
        if (phase === 'stopping') return;
        if (code !== undefined) {
          if (failure === undefined) fail(code);
          throw code;
        }
        phase = 'running';
        const serving = listening();
        const { url, details } = serving[0]?.listening ?? { url: '', details: {} };
        // One that listened and died while the others started is replaced next (its death queued it).
        logger.info({ url, ...details, workers: serving.length, pids: serving.map((member) => member.pid) }, 'gateway listening');
      });
    },

    /** Calls `listener` with the exit code when the gateway must stop on its own (a crash loop). */
    onFailure(listener: (code: number) => void): void {
      failureListeners.push(listener);
      if (failure !== undefined) listener(failure);
    },

    /**
     * Rolls the workers over to `next` (SIGHUP), once every change asked before it is over; of
     * several asked meanwhile, the last. Resolves with the settings in force after it; `undefined`
     * when a later one took its place (that one's caller learns the outcome).
     */
    reload(next: Generation): Promise<Generation | undefined> {
      if (queuedReload !== undefined) {
        queuedReload.next = next;
        logger.info({}, 'reload queued: another is under way');
        return Promise.resolve(undefined);
      }
      const queued = (queuedReload = { next });
      return serially(async () => {
        queuedReload = undefined;
        if (phase === 'running' && current !== undefined) return reloadWorkers(pool, current, queued.next, logger);
        logger.warn({}, `reload ignored: the gateway is ${phase}`);
        return current;
      });
    },

    /** Every worker, the oldest first. */
    members(): Member[] {
      return [...members.values()];
    },

    /** True until every first worker listens. */
    starting: () => phase === 'starting',

    /** SIGTERM to every worker (each drains within SHUTDOWN_TIMEOUT_MS); resolves when all have exited. */
    stop(): Promise<void> {
      phase = 'stopping';
      return new Promise<void>((resolve) => {
        if (members.size === 0) return resolve();
        stopped = resolve;
        for (const member of members.values()) stopMember(member);
      });
    },
  };
}

export type Supervisor = ReturnType<typeof createSupervisor>;
