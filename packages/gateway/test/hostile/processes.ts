import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { freePort, startService, type ServiceKind } from '@animal-store/testkit';
import { servingPid } from '../support/index.js';

/** A gateway or core running as production runs it: its built `npm start`, in a process of its own. */
export interface ServiceUnderTest {
  readonly url: string;
  readonly port: number;
  /** The process that serves: the gateway's one worker (its primary only hands connections over), or the core. */
  readonly pid: number;
  /** The process started: the gateway's primary, or the core. */
  readonly startedPid: number;
  /** Open file descriptors of the process, from /proc. */
  descriptors(): number;
  /**
   * Descriptors the process holds for client connections: sockets accepted on its own port (the
   * listening one aside), told apart from its upstream and Redis connections through /proc/net/tcp.
   */
  clientSockets(): number;
  /** Resident set size in bytes, from /proc. */
  rss(): number;
  /** Resident set size of the whole service in bytes: the gateway's primary and its worker together. */
  totalRss(): number;
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
export async function startProcess(kind: ServiceKind, env: Record<string, string>): Promise<ServiceUnderTest> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const service = await startService({
    service: kind,
    env: { HOST: '127.0.0.1', PORT: String(port), ...env },
    healthzAt: url,
    timeoutMs: 30_000,
  }).catch((error: Error) => {
    throw new Error(`${kind}: ${error.message}`);
  });
  // The gateway's worker (one: WORKERS=1 is the tests' default), where the connections are; found
  // when first read, so a gateway of several workers starts too (and throws only if it is read).
  let serving: number | undefined;
  const pidOf = () => (serving ??= servingPid(service.pid));
  return {
    url,
    port,
    get pid() {
      return pidOf();
    },
    startedPid: service.pid,
    descriptors: () => readdirSync(`/proc/${pidOf()}/fd`).length,
    clientSockets: () => clientSocketsOf(pidOf(), port),
    rss: () => rssOf(pidOf()),
    totalRss: () => (pidOf() === service.pid ? rssOf(service.pid) : rssOf(service.pid) + rssOf(pidOf())),
    stderr: () => service.output(),
    stop: async () => {
      await service.stop('SIGTERM', 10_000);
    },
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

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

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
