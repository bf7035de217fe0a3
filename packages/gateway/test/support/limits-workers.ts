import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import type { GatewayConfig } from '../../src/config/index.js';
import { channelToWorker, createPort } from '../../src/ipc/index.js';
import type { LimitsHost } from '../../src/ratelimit/primary/index.js';
import type { WorkerTask } from './primary-limits-worker.js';

const ENTRY = fileURLToPath(new URL('./primary-limits-worker.ts', import.meta.url));

/** Rate-limit settings for a primary's limits host: what `hostLimits` reads of them (no plans file is opened). */
export const LIMITS: Extract<GatewayConfig['rateLimits'], { mode: 'on' }> = {
  mode: 'on',
  plansFile: '/nonexistent',
  onRedisFailure: 'local',
  localShare: 0.5,
  onPrimaryFailure: 'local',
  primaryTimeoutMs: 1000,
  denyCacheMs: 1000,
  leaseUnits: 64,
  maxAddresses: 20_000,
  quotaTimeZone: 'UTC',
  shadowPlans: new Set(),
};

/** A forked worker of `primary-limits-worker.ts`, driven over its IPC channel. */
export interface LimitsWorker {
  readonly worker: Worker;
  /** Runs `task` in the worker and resolves with its result. */
  run<T = unknown>(task: WorkerTask): Promise<T>;
  /** Resolves with the worker's exit code once it exited. */
  readonly exited: Promise<number | null>;
}

/**
 * Forks `count` workers of `primary-limits-worker.ts` from this process, which becomes their
 * `node:cluster` primary, each attached to `host` (unless `attach` is false: a primary that never
 * answers). Resolves once every worker says it is ready.
 */
export async function forkLimitsWorkers(
  count: number,
  host: LimitsHost,
  options: { readonly serialization?: 'json' | 'advanced'; readonly attach?: boolean } = {},
): Promise<LimitsWorker[]> {
  cluster.setupPrimary({ exec: ENTRY, execArgv: ['--import', 'tsx'], serialization: options.serialization ?? 'json' });
  const workers: LimitsWorker[] = [];
  for (let i = 0; i < count; i++) {
    const worker = cluster.fork({ LIMITS_TEST_WORKER: '1' });
    if (options.attach !== false) host.attach(createPort(channelToWorker(worker)));
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
    let ids = 0;
    const ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: { type?: string; id?: number; result?: unknown; error?: string }) => {
        if (message.type === 'limits-test:ready') resolve();
        if (message.type !== 'limits-test:done') return;
        const pending = waiting.get(message.id as number);
        waiting.delete(message.id as number);
        if (message.error !== undefined) pending?.reject(new Error(message.error));
        else pending?.resolve(message.result);
      });
      void exited.then((code) => reject(new Error(`limits worker exited with ${code} before it was ready`)));
    });
    await ready;
    workers.push({
      worker,
      exited,
      run: <T>(task: WorkerTask) =>
        new Promise<T>((resolve, reject) => {
          const id = ++ids;
          waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
          worker.send({ type: 'limits-test:run', id, task });
        }),
    });
  }
  return workers;
}

/** Stops the workers: each is disconnected and resolves once it exited (killed after 5 s). */
export async function stopLimitsWorkers(workers: readonly LimitsWorker[]): Promise<void> {
  await Promise.all(
    workers.map(async ({ worker, exited }) => {
      if (worker.isDead()) return;
      const kill = setTimeout(() => worker.kill('SIGKILL'), 5000);
      worker.kill('SIGTERM');
      await exited;
      clearTimeout(kill);
    }),
  );
}
