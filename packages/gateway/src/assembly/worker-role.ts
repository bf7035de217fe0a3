import type { Server } from 'node:http';
import { drain, handOver, LISTEN_BACKLOG } from '@animal-store/http-kit';
import type { Logger } from 'pino';
import { answerFromBook } from '../admin/index.js';
import type { GatewayConfig } from '../config/index.js';
import { MESSAGE, QUESTION, type Message, type Port } from '../ipc/index.js';
import type { Placement } from './placement.js';
import { assembleRequestPath, type RequestPath } from './request-path.js';

/** How long a worker's `/readyz` waits for the primary's word on the others (each asked with its own bound). */
const OTHERS_TIMEOUT_MS = 3_000;

/** A worker tells the primary it listens, with the details of the `gateway listening` line. */
export interface Listening extends Message {
  readonly type: typeof MESSAGE.listening;
  readonly url: string;
  readonly details: Readonly<Record<string, unknown>>;
}

/** A worker about to exit after a hand-over: its counters, which the gateway's totals keep. */
export interface FinalMetrics extends Message {
  readonly type: typeof MESSAGE.finalMetrics;
  readonly metrics: unknown;
}

export interface WorkerRoleDeps {
  readonly logger: Logger;
  readonly placement: Placement;
  /** The port to the primary. */
  readonly port: Port;
  /** The worker's id, from 1 (node:cluster's numbering). */
  readonly id: number;
  readonly now?: (() => number) | undefined;
  readonly redisNow?: (() => number) | undefined;
}

/** A worker, assembled: its request path, answering its primary. */
export interface WorkerRole extends RequestPath {
  /** Listens on `config`'s address (or `at`), tells the primary, and resolves with its URL. */
  listen(at?: { readonly port: number; readonly host: string }): Promise<string>;
  /**
   * Stops taking requests: `drain` lets its connections finish, `hand-over` lets them go to the
   * other workers (a reload), sending its counters to the primary first. Resolves once closed.
   */
  stop(how: 'drain' | 'hand-over'): Promise<void>;
}

/**
 * The worker's half of the gateway, the same in a forked worker process and in a test's
 * process: the request path where the placement says, answering the primary's questions (its
 * readiness, its metrics, and the admin API's where it keeps the book), and asking it whether
 * the other workers are ready.
 */
export function createWorkerRole(config: GatewayConfig, deps: WorkerRoleDeps): WorkerRole {
  const { port } = deps;
  const path = assembleRequestPath(config, {
    logger: deps.logger,
    placement: deps.placement,
    port,
    workerId: deps.id,
    now: deps.now,
    redisNow: deps.redisNow,
    othersReady: async (down) => {
      const answer = await port.ask(QUESTION.othersReadiness, OTHERS_TIMEOUT_MS, down);
      return Array.isArray(answer) ? (answer as string[]) : ['other workers (the primary did not answer)'];
    },
  });
  port.answer(QUESTION.readiness, () => path.readiness());
  port.answer(QUESTION.metrics, async () => (path.metricsRegistry === undefined ? [] : path.metricsRegistry.getMetricsAsJSON()));
  // A lone worker without Redis keeps its limits: the primary's admin API reads them here.
  if (path.book !== undefined) port.answer(QUESTION.admin, answerFromBook(path.book));
  // What Redis said last of some accounts, as this worker saw it: the primary combines the workers' for a fallback.
  const { redisViews } = path;
  if (redisViews !== undefined) {
    const now = deps.now ?? Date.now;
    port.answer(QUESTION.redisViews, async (subjects) => redisViews.usedAt(Array.isArray(subjects) ? (subjects as string[]) : [], now()));
  }
  const server = path.server as Server;

  return {
    ...path,
    listen(at = { port: config.port, host: config.host }) {
      return new Promise((resolve) => {
        server.listen({ port: at.port, host: at.host, backlog: LISTEN_BACKLOG }, () => {
          const address = server.address();
          const bound = typeof address === 'object' && address !== null ? address.port : at.port;
          const url = `${config.tls === undefined ? 'http' : 'https'}://${at.host}:${bound}`;
          const details = {
            upstream: config.upstream.url.href,
            // The prefixes in effect, so the paths the backend gets are seen without working out the settings.
            publicBasePath: path.basePaths.public,
            upstreamBasePath: path.basePaths.upstream,
            operations: path.operations.length,
          };
          port.send({ type: MESSAGE.listening, url, details } satisfies Listening);
          resolve(url);
        });
      });
    },
    async stop(how) {
      await (how === 'drain' ? drain(server, config.shutdownTimeoutMs) : handOver(server, config.shutdownTimeoutMs));
      // The counters of a worker that leaves while the gateway runs stay in its totals.
      if (how === 'hand-over' && path.metricsRegistry !== undefined) {
        const metrics = await path.metricsRegistry.getMetricsAsJSON();
        // Sent before the exit that follows can drop it.
        await new Promise<void>((resolve) => {
          if (!port.send({ type: MESSAGE.finalMetrics, metrics } satisfies FinalMetrics, () => resolve())) resolve();
        });
      }
      await path.close();
    },
  };
}
