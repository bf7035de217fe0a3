import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Processes that keep the machine's cores busy, for tests of guarantees on a busy host. */
export interface CpuHog {
  /** How many spinning processes were started. */
  readonly processes: number;
  /** Kills them (they also end by themselves after `maxMs`); resolves once all have exited. */
  stop(): Promise<void>;
}

export interface CpuHogOptions {
  /**
   * Spinning processes; six per core by default. With one or two per core the scheduler still
   * runs Redis and the gateways promptly (the old 50 ms budget held there); six per core delays
   * them by hundreds of ms, as a build or a parallel test run on the same host does.
   */
  readonly processes?: number;
  /** Each process ends by itself this long after it started, whatever the test does. */
  readonly maxMs: number;
}

/**
 * Starts `processes` Node processes that spin on the CPU until stopped or `maxMs` have passed.
 * Bounded in count and time: a test that dies without calling `stop()` leaves nothing running
 * past `maxMs`.
 */
export function startCpuHog(options: CpuHogOptions): CpuHog {
  const count = options.processes ?? availableParallelism() * 6;
  const spin = `const end = Date.now() + ${Math.ceil(options.maxMs)}; let x = 0; while (Date.now() < end) x += Math.sqrt(x + 1);`;
  const children: ChildProcess[] = Array.from({ length: count }, () => spawn(process.execPath, ['-e', spin], { stdio: 'ignore' }));
  return {
    processes: count,
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGKILL');
            }),
        ),
      );
    },
  };
}
