import { spawn, type ChildProcess } from 'node:child_process';
import { TEST_ENV } from './config.js';
import { REPOSITORY_ROOT, serviceCommand, type ServiceKind } from './service-command.js';

export interface ServiceProcess {
  /** The base URL the service logged when it started listening, or the `healthzAt` it was started with. */
  readonly url: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything the process wrote so far that was kept: stdout (when read for readiness) and stderr. */
  output(): string;
  /**
   * Sends `signal` (SIGTERM by default) and resolves with the exit code. With `killAfterMs`, a
   * process still running that long after gets SIGKILL.
   */
  stop(signal?: NodeJS.Signals, killAfterMs?: number): Promise<number | null>;
}

export interface StartServiceOptions {
  /**
   * A service of this repository run as it ships (`serviceCommand`): its package's `npm start`
   * on the built code, in its folder. What the tests start unless they test the sources' path.
   */
  readonly service?: ServiceKind;
  /** Or a TypeScript entry point, run with `node --import tsx`. */
  readonly entry?: string;
  /** Or a whole command line (`npm run …`, `nginx …`). */
  readonly command?: readonly string[];
  /**
   * Runs the process in a process group of its own and signals the whole group (default: for a
   * `command`, where npm and sh stand between the test and the service).
   */
  readonly group?: boolean;
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** How long it may take to be ready: 15 s unless told. */
  readonly timeoutMs?: number;
  /**
   * Ready when `healthzAt`/healthz answers 200, and stdout goes to /dev/null: a soak or a benchmark
   * writes millions of log lines, and what writing them costs is part of what is measured. Unset,
   * it is ready when it logs a JSON line carrying `url` (every service here logs one when it listens).
   */
  readonly healthzAt?: string;
  /** `inherit` shows stderr as it comes (the bench); by default it is kept for `output()`. */
  readonly stderr?: 'keep' | 'inherit';
}

/**
 * Runs a service as a real process and resolves once it is ready (see `healthzAt`); rejects if it
 * exits first or is not ready in time (then it is killed). Ports come from the env (`PORT=0` picks
 * one when readiness is read from the log).
 */
export async function startService(options: StartServiceOptions): Promise<ServiceProcess> {
  const shipped = options.service === undefined ? undefined : serviceCommand(REPOSITORY_ROOT, options.service);
  const [file, ...args] = options.command ?? shipped?.command ?? [process.execPath, '--import', 'tsx', options.entry ?? ''];
  const group = options.group ?? options.command !== undefined;
  const byLog = options.healthzAt === undefined;
  const child = spawn(file as string, args, {
    cwd: options.cwd ?? shipped?.cwd,
    // One gateway worker unless the test asks for more (WORKERS=auto would start one per core:
    // slower, and not what the tests written before workers meant). The core reads no WORKERS.
    env: { PATH: TEST_ENV.path, WORKERS: '1', ...options.env },
    stdio: ['ignore', byLog ? 'pipe' : 'ignore', options.stderr === 'inherit' ? 'inherit' : 'pipe'],
    detached: group,
  });
  const signal = (name: NodeJS.Signals) => (group && child.pid !== undefined ? process.kill(-child.pid, name) : child.kill(name));
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const url = await new Promise<string>((resolve, reject) => {
    let settled = false;
    const settle = (error: Error | undefined, found?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.off('exit', exitedEarly);
      if (error === undefined) resolve(found as string);
      else reject(error);
    };
    const timer = setTimeout(() => {
      signal('SIGKILL');
      settle(new Error(`service did not start in time:\n${output}`));
    }, options.timeoutMs ?? 15_000);
    const exitedEarly = (code: number | null) => settle(new Error(`service exited with ${code} before it was ready:\n${output}`));
    child.once('exit', exitedEarly);
    if (byLog) {
      child.stdout?.on('data', () => {
        const found = listeningUrl(output);
        if (found !== undefined) settle(undefined, found);
      });
    } else {
      void pollHealthz(options.healthzAt as string, () => settled).then((ok) => ok && settle(undefined, options.healthzAt));
    }
  });

  return {
    url,
    child,
    pid: child.pid as number,
    output: () => output,
    async stop(name = 'SIGTERM', killAfterMs) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      signal(name);
      const kill = killAfterMs === undefined ? undefined : setTimeout(() => signal('SIGKILL'), killAfterMs);
      const code = await exited;
      clearTimeout(kill);
      return code;
    },
  };
}

/** Asks `url`/healthz every 50 ms until it answers 200 (true) or `givenUp()` says to stop (false). */
async function pollHealthz(url: string, givenUp: () => boolean): Promise<boolean> {
  while (!givenUp()) {
    const ok = await fetch(`${url}/healthz`).then(
      async (res) => (await res.arrayBuffer(), res.ok),
      () => false,
    );
    if (ok) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

function listeningUrl(output: string): string | undefined {
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const record = JSON.parse(line) as { url?: unknown };
      if (typeof record.url === 'string') return record.url;
    } catch {
      // A partial line; the next chunk completes it.
    }
  }
  return undefined;
}
