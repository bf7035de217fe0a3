import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort, TEST_ENV } from '@animal-store/testkit';

const MAINS = {
  gateway: fileURLToPath(new URL('../../src/main.ts', import.meta.url)),
  core: fileURLToPath(new URL('../../../core/src/main.ts', import.meta.url)),
} as const;

/** A gateway or core running as production runs it: `src/main.ts` in a process of its own. */
export interface ServiceUnderTest {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Open file descriptors of the process, from /proc. */
  descriptors(): number;
  /**
   * Descriptors the process holds for client connections: sockets accepted on its own port (the
   * listening one aside), told apart from its upstream and Redis connections through /proc/net/tcp.
   */
  clientSockets(): number;
  /** Resident set size in bytes, from /proc. */
  rss(): number;
  /** What the process wrote on stderr (its log goes to /dev/null: millions of lines in a soak). */
  stderr(): string;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * Starts the gateway or the core on a free loopback port with `env`, and resolves once /healthz
 * answers (rejects if it exits first, or after 30 s). Its log lines go to /dev/null, as a
 * deployment writes them somewhere: their cost is part of what runs.
 */
export async function startProcess(kind: keyof typeof MAINS, env: Record<string, string>): Promise<ServiceUnderTest> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', MAINS[kind]], {
    env: { PATH: TEST_ENV.path, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${kind} exited with ${child.exitCode}:\n${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${kind} did not answer /healthz in 30 s:\n${stderr}`);
    }
    if (
      await fetch(`${url}/healthz`).then(
        async (res) => (await res.arrayBuffer(), res.ok),
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const pid = child.pid as number;
  return {
    url,
    port,
    pid,
    descriptors: () => readdirSync(`/proc/${pid}/fd`).length,
    clientSockets: () => clientSocketsOf(pid, port),
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** Polls `value()` every 100 ms until `ok` holds and resolves with the ms it took, or throws `describe(value)` after `timeoutMs`. */
export async function eventually<T>(value: () => T, ok: (value: T) => boolean, timeoutMs: number, describe: (value: T) => string): Promise<number> {
  const started = performance.now();
  for (;;) {
    const current = value();
    if (ok(current)) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(describe(current));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** TCP states in /proc/net/tcp: 0A is LISTEN. */
const LISTEN = '0A';

function clientSocketsOf(pid: number, port: number): number {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] !== LISTEN) inodes.add(fields[9] as string);
    }
  }
  let count = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match !== null && inodes.has(match[1] as string)) count += 1;
    } catch {
      // Closed meanwhile.
    }
  }
  return count;
}
