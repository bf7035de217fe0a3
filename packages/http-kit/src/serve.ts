import type { Server } from 'node:http';
import type { Server as TlsServer } from 'node:https';
import { drain } from './drain.js';

/**
 * Connections the kernel may hold for the server before it accepts them (Linux caps it at
 * `net.core.somaxconn`, 4096 by default). Node's default is 511: a burst of new connections larger
 * than that, met while the event loop is busy, overflows the queue, and the kernel answers the
 * overflow with SYN cookies, dropped handshakes and resets (`read ECONNRESET` at the client).
 * HAProxy sizes its backlog by `maxconn` for the same reason.
 */
export const LISTEN_BACKLOG = 4096;

/** The part of a pino logger serve needs. */
export interface ServeLogger {
  info(fields: Record<string, unknown>, message: string): void;
  fatal(fields: Record<string, unknown>, message: string): void;
}

export interface ServeOptions {
  /** The service's name in log lines: `<name> listening`, `<name> draining`, `<name> stopped`. */
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly logger: ServeLogger;
  readonly shutdownTimeoutMs: number;
  /** `https` when the server is a TLS one, for the URL in the listening line. */
  readonly scheme?: 'http' | 'https';
  /** Extra fields for the listening line. */
  readonly details?: Record<string, unknown>;
  /** Closes what the server used (stores, clients), once the last request is answered. */
  readonly onDrained?: () => unknown;
}

/**
 * Listens and handles the process's life: a listen failure is logged and exits 1; SIGTERM or
 * SIGINT drains (no new connections, requests in flight finish, idle keep-alive sockets close,
 * stragglers are cut at the deadline), closes the dependencies and exits 0. The listening line
 * carries the URL (with the real port when 0 was asked for).
 */
export function serve(server: Server | TlsServer, options: ServeOptions): void {
  const { logger, name } = options;
  server.on('error', (error: NodeJS.ErrnoException) => {
    const failure = listenFailure(name, error, options.host, options.port);
    logger.fatal(failure.fields, failure.message);
    process.exit(1);
  });
  server.listen({ port: options.port, host: options.host, backlog: LISTEN_BACKLOG }, () => {
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : options.port;
    logger.info({ url: `${options.scheme ?? 'http'}://${options.host}:${port}`, ...options.details }, `${name} listening`);
  });

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${name} draining`);
    void drain(server, options.shutdownTimeoutMs)
      .then(() => options.onDrained?.())
      .then(() => {
        logger.info({}, `${name} stopped`);
        process.exit(0);
      });
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

/**
 * The log line of a listen failure: `<name> cannot listen on host:port`, with what to do about the
 * usual ones (no stack trace: it is not a bug), or the error itself for the others.
 */
export function listenFailure(
  name: string,
  error: NodeJS.ErrnoException,
  host: string,
  port: number,
): { readonly fields: Record<string, unknown>; readonly message: string } {
  const hint = LISTEN_HINTS[error.code ?? ''];
  const where = `${host}:${port}`;
  if (hint === undefined) return { fields: { err: error }, message: `${name} cannot listen on ${where}` };
  return { fields: { code: error.code, host, port }, message: `${name} cannot listen on ${where}: ${hint}` };
}

/** What an operator can do about the usual listen failures. */
const LISTEN_HINTS: Record<string, string> = {
  EADDRINUSE: 'the port is already in use by another program; stop it, or set PORT to another port (PORT=0 picks a free one)',
  EACCES: 'not allowed to listen on this port (ports below 1024 need privileges); set PORT to 1024 or above',
  EADDRNOTAVAIL: 'this machine has no such address; set HOST to one of its addresses (127.0.0.1, 0.0.0.0)',
};

/** An invalid configuration: every problem on stderr, exit code 2. */
export function exitWithProblems(name: string, problems: readonly string[]): never {
  process.stderr.write(`${name}: invalid configuration\n${problems.map((problem) => `  - ${problem}\n`).join('')}`);
  process.exit(2);
}
