import { spawn, type ChildProcess } from 'node:child_process';
import { TEST_ENV } from './config.js';

export interface ServiceProcess {
  /** The base URL the service logged when it started listening. */
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the process wrote so far, stdout and stderr. */
  output(): string;
  /** Sends `signal` (SIGTERM by default) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartServiceOptions {
  /** The TypeScript entry point, run with `node --import tsx`. */
  readonly entry?: string;
  /** Or a whole command line (`npm run …`), run in a process group of its own and stopped as one. */
  readonly command?: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly timeoutMs?: number;
}

/**
 * Runs a service entry point as a real process and waits for its JSON log line carrying `url`
 * (every service here logs one when it listens). Ports come from the env (`PORT=0` picks one).
 */
export function startService(options: StartServiceOptions): Promise<ServiceProcess> {
  const [file, ...args] = options.command ?? [process.execPath, '--import', 'tsx', options.entry ?? ''];
  const group = options.command !== undefined;
  const child = spawn(file as string, args, {
    cwd: options.cwd,
    env: { PATH: TEST_ENV.path, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: group,
  });
  // npm and sh between the test and the service: signal all of them.
  const signal = (name: NodeJS.Signals) => (group && child.pid !== undefined ? process.kill(-child.pid, name) : child.kill(name));
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal('SIGKILL');
      reject(new Error(`service did not start in time:\n${output}`));
    }, options.timeoutMs ?? 15_000);
    const exitedEarly = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening:\n${output}`));
    };
    child.once('exit', exitedEarly);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = listeningUrl(output);
      if (url === undefined) return;
      clearTimeout(timer);
      child.off('exit', exitedEarly);
      resolve({
        url,
        child,
        output: () => output,
        async stop(name = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) signal(name);
          return exited;
        },
      });
    });
  });
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
