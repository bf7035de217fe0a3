import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@animal-store/testkit';

/** This checkout's root: the services run from here unless told another (`bench:compare`'s worktree). */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAINS = { core: 'packages/core/src/main.ts', gateway: 'packages/gateway/src/main.ts' } as const;

export interface Service {
  readonly name: string;
  readonly url: string;
  /** Its process id, for CPU accounting (`lib/cpu.ts`). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Starts the core or a gateway as its own process on a free loopback port, with `env`, and waits
 * for /healthz. Logs go to /dev/null: a real deployment writes them somewhere, and pino's cost of
 * writing them is part of what is measured. `root` is the checkout whose code runs (this one by
 * default), with its own `tsx` and dependencies.
 */
export async function startService(name: string, kind: keyof typeof MAINS, env: Record<string, string>, root = REPOSITORY_ROOT): Promise<Service> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(root, MAINS[kind])], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return serviceOf(name, child, `http://127.0.0.1:${port}`);
}

/**
 * A started child process as a Service: resolves once `url`/healthz answers (rejects if the process
 * exits first or takes over 30 s); `stop` sends SIGTERM and waits for the exit.
 */
export async function serviceOf(name: string, child: ChildProcess, url: string): Promise<Service> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${name} did not start`);
    if (
      await fetch(`${url}/healthz`).then(
        (res) => res.ok,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // A service that dies mid-run makes every later scenario against it fail: say who, and how.
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`bench: ${name} (pid ${child.pid}) exited during the run: ${signal ?? `code ${code}`}\n`);
  });
  return {
    name,
    url,
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        stopping = true;
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The pets core, with 20 pets in its store: `GET /v1/pets` answers a full first page. */
export async function startSeededCore(): Promise<Service> {
  const core = await startService('core', 'core', { LOG_LEVEL: 'info' });
  for (let i = 0; i < 20; i++) {
    await fetch(`${core.url}/v1/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `pet-${i}`, categoryId: 1 + (i % 4), status: 'available' }),
    });
  }
  return core;
}
