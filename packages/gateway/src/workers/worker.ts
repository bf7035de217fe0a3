import cluster from 'node:cluster';
import { bufferedStdout, exitWithProblems, listenFailure } from '@animal-store/http-kit';
import { pino } from 'pino';
import { PLACEMENT_VARIABLE, placementFrom } from '../assembly/placement.js';
import { createWorkerRole, type WorkerRole } from '../assembly/worker-role.js';
import { loadConfigFromEnv } from '../config/index.js';
import { channelToPrimary, createPort, MESSAGE } from '../ipc/index.js';

/**
 * A worker process: the worker's half of the gateway (`createWorkerRole`) in a process forked by
 * the primary. Its settings are the primary's (its environment, with the settings file's values
 * over it), already checked there, and so is where the state lives (`PLACEMENT_VARIABLE`). It
 * listens on the primary's socket, logs with its `worker` id, and on `hand-over` (a reload) lets
 * its connections go to its successor without failing a request, then exits.
 */
export function runWorker(): void {
  const id = cluster.worker?.id ?? 0;
  const result = loadConfigFromEnv();
  if (!result.ok) exitWithProblems('gateway', result.problems);
  const { config } = result;
  const placement = placementFrom(process.env[PLACEMENT_VARIABLE]);
  if (placement === undefined) exitWithProblems('gateway', [`a worker runs only as its primary forks it (${PLACEMENT_VARIABLE} is not set)`]);
  const logger = pino({ name: 'gateway', level: config.logLevel }, bufferedStdout()).child({ worker: id });
  const port = createPort(channelToPrimary());
  let role: WorkerRole;
  try {
    role = createWorkerRole(config, { logger, placement, port, id });
  } catch (error) {
    exitWithProblems('gateway', [(error as Error).message]);
  }

  role.server.on('error', (error: NodeJS.ErrnoException) => {
    const failure = listenFailure('gateway', error, config.host, config.port);
    logger.fatal(failure.fields, failure.message);
    process.exit(1);
  });
  void role.listen().then(() => logger.info({}, 'worker listening'));

  let stopping = false;
  const stop = (how: 'drain' | 'hand-over', fields: Record<string, unknown>) => {
    if (stopping) return;
    stopping = true;
    logger.info(fields, how === 'drain' ? 'worker draining' : 'worker handing over');
    void role.stop(how).then(() => {
      logger.info({}, 'worker stopped');
      process.exit(0);
    });
  };
  process.on('SIGTERM', () => stop('drain', { signal: 'SIGTERM' }));
  process.on('SIGINT', () => stop('drain', { signal: 'SIGINT' }));
  // A reload is the primary's: a SIGHUP sent to the whole process group must not end a worker.
  process.on('SIGHUP', () => {});
  port.on(MESSAGE.handOver, () => stop('hand-over', {}));
}
