import type { Server } from 'node:http';
import { drain } from './drain.js';

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
export function serve(server: Server, options: ServeOptions): void {
  const { logger, name } = options;
  server.on('error', (error) => {
    logger.fatal({ err: error }, `${name} cannot listen on ${options.host}:${options.port}`);
    process.exit(1);
  });
  server.listen(options.port, options.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : options.port;
    logger.info({ url: `http://${options.host}:${port}`, ...options.details }, `${name} listening`);
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

/** An invalid configuration: every problem on stderr, exit code 2. */
export function exitWithProblems(name: string, problems: readonly string[]): never {
  process.stderr.write(`${name}: invalid configuration\n${problems.map((problem) => `  - ${problem}\n`).join('')}`);
  process.exit(2);
}
