import cluster from 'node:cluster';
import { channelToWorker, type Channel } from '../ipc/index.js';

/** A worker process as the supervisor drives it: its channel, its exit, and signals. */
export interface SpawnedWorker {
  /** Its id, from 1 (node:cluster's numbering). */
  readonly id: number;
  readonly pid: number;
  readonly channel: Channel;
  /** Calls `listener` once the process exited. */
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  kill(signal: NodeJS.Signals): void;
}

/** Starts a worker with `env` over the primary's environment. */
export type Spawn = (env: Readonly<Record<string, string>>) => SpawnedWorker;

/** A worker forked by node:cluster, running the primary's entry. */
export const spawnClusterWorker: Spawn = (env) => {
  const worker = cluster.fork(env);
  return {
    id: worker.id,
    pid: worker.process.pid as number,
    channel: channelToWorker(worker),
    onExit: (listener) => void worker.on('exit', listener),
    kill: (signal) => void worker.process.kill(signal),
  };
};

/**
 * How new connections reach the workers, fixed for the process's life at the first fork. Several
 * workers: the primary accepts each and hands it to the next worker in turn (round robin: an even
 * spread, where the kernel would give most of a burst to one worker). One worker: it accepts on
 * the primary's socket itself, as a single process does. Handing over costs an IPC round trip per
 * connection, one at a time per worker: under a CPU hog a burst of 3,000 new connections took 60 s
 * instead of 11, and its requests no longer shared Redis round trips (ratelimit-burst.test.ts).
 */
export function scheduleConnections(workers: number): void {
  cluster.schedulingPolicy = workers === 1 ? cluster.SCHED_NONE : cluster.SCHED_RR;
}
