import cluster from 'node:cluster';
import type { Server } from 'node:http';
import { bufferedStdout, drain, exitWithProblems, handOver, LISTEN_BACKLOG, listenFailure } from '@animal-store/http-kit';
import { pino } from 'pino';
import { buildGateway, type BuiltGateway } from '../build-gateway.js';
import { loadConfigFromEnv } from '../config/index.js';
import { autoWorkers } from './available-cores.js';
import { primaryChannel } from './channels.js';
import { answerQuestions, ask, isMessage } from './ipc.js';
import { answerFromBook } from './worker-book.js';

/** How long a worker's `/readyz` waits for the primary's word on the others (each asked with its own bound). */
const OTHERS_TIMEOUT_MS = 3_000;

/**
 * A worker: the gateway as one process ran it before there were workers (buildGateway, listen,
 * drain on SIGTERM), in a process forked by the primary. Its settings are the primary's (its
 * environment, with the settings file's values over it), already checked there. It listens on
 * the primary's socket, logs with its `worker` id, tells the primary when it listens, answers
 * its questions (readiness, metrics, and the admin API's when it keeps the limits), and on `hand-over` (a reload) lets its connections go to
 * its successor without failing a request, then exits.
 */
export function runWorker(): void {
  const id = cluster.worker?.id ?? 0;
  const channel = primaryChannel();
  const result = loadConfigFromEnv();
  if (!result.ok) exitWithProblems('gateway', result.problems);
  const { config } = result;
  const logger = pino({ name: 'gateway', level: config.logLevel }, bufferedStdout()).child({ worker: id });
  const othersReady = {
    name: 'other workers',
    ready: async () => {
      const down = await ask(channel, 'others-readiness', OTHERS_TIMEOUT_MS);
      return Array.isArray(down) && down.length === 0;
    },
  };
  let gateway: BuiltGateway;
  try {
    // With several workers, the limits in process are the primary's, shared by all of them (see
    // ratelimit/primary/). A single worker keeps its own: asking the primary cost it 10 to 14 µs of
    // CPU a request (docs/limits.md), and there is no other worker to share them with.
    const workers = config.workers === 'auto' ? autoWorkers() : config.workers;
    gateway = buildGateway(config, { logger, worker: { id, othersReady, limits: workers > 1 ? process : undefined } });
  } catch (error) {
    exitWithProblems('gateway', [(error as Error).message]);
  }
  const { server, metricsRegistry, book } = gateway;
  answerQuestions(channel, {
    readiness: () => gateway.readiness(),
    metrics: async () => (metricsRegistry === undefined ? [] : metricsRegistry.getMetricsAsJSON()),
    // A lone worker without Redis keeps its limits: the primary's admin API reads them here.
    ...(book === undefined ? {} : { admin: answerFromBook(book) }),
  });

  server.on('error', (error: NodeJS.ErrnoException) => {
    const failure = listenFailure('gateway', error, config.host, config.port);
    logger.fatal(failure.fields, failure.message);
    process.exit(1);
  });
  server.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG }, () => {
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    channel.send({
      type: 'gateway:listening',
      url: `${config.tls === undefined ? 'http' : 'https'}://${config.host}:${port}`,
      details: {
        upstream: config.upstream.url.href,
        // The prefixes in effect, so the paths the backend gets are seen without working out the settings.
        publicBasePath: gateway.basePaths.public,
        upstreamBasePath: gateway.basePaths.upstream,
        operations: gateway.operations.length,
      },
    });
    logger.info({}, 'worker listening');
  });

  let stopping = false;
  const stop = (how: 'drain' | 'hand-over', fields: Record<string, unknown>) => {
    if (stopping) return;
    stopping = true;
    logger.info(fields, how === 'drain' ? 'worker draining' : 'worker handing over');
    const closed = how === 'drain' ? drain(server as Server, config.shutdownTimeoutMs) : handOver(server as Server, config.shutdownTimeoutMs);
    void closed
      .then(async () => {
        // The counters of a worker that leaves while the gateway runs stay in its totals.
        if (how === 'hand-over' && metricsRegistry !== undefined) {
          const metrics = await metricsRegistry.getMetricsAsJSON();
          // Sent before the exit below can drop it.
          await new Promise<void>((resolve) => {
            if (process.send === undefined || !process.connected) return resolve();
            process.send({ type: 'gateway:final-metrics', metrics }, undefined, undefined, () => resolve());
          });
        }
        await gateway.close();
      })
      .then(() => {
        logger.info({}, 'worker stopped');
        process.exit(0);
      });
  };
  process.on('SIGTERM', () => stop('drain', { signal: 'SIGTERM' }));
  process.on('SIGINT', () => stop('drain', { signal: 'SIGINT' }));
  // A reload is the primary's: a SIGHUP sent to the whole process group must not end a worker.
  process.on('SIGHUP', () => {});
  channel.on('message', (message) => {
    if (isMessage(message, 'gateway:hand-over')) stop('hand-over', {});
  });
}
