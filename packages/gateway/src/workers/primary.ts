import type { Worker } from 'node:cluster';
import type { Server } from 'node:http';
import { bufferedStdout, exitWithProblems, nodeSupport } from '@animal-store/http-kit';
import { pino, type Logger } from 'pino';
import type { GatewayConfig } from '../config/index.js';
import { prepareAdmin, type AdminTokens } from '../admin/index.js';
import { createMetricsServer } from '../observability/metrics-server.js';
import { hostLimits } from '../ratelimit/primary/index.js';
import { autoWorkers } from './available-cores.js';
import { createClusterMetrics } from './cluster-metrics.js';
import { primaryAdmin } from './primary-admin.js';
import { readSettings } from './settings-source.js';
import type { Generation } from './members.js';
import { createSupervisor, type Supervisor } from './supervisor.js';

export interface PrimaryOptions {
  /** Called for every worker forked: where a part of the primary that serves the workers attaches. */
  readonly onFork?: (worker: Worker) => void;
}

/**
 * The gateway's primary process: reads and checks the settings (invalid: exit 2 before any worker
 * starts), forks `WORKERS` workers that serve, opens the admin listener (`/metrics`, the workers'
 * sum, and with ADMIN_TOKEN_FILE the admin API and console), and handles the signals: SIGTERM and SIGINT drain every worker and exit 0, SIGHUP reads the
 * settings again and replaces the workers one at a time. It serves no request itself.
 */
export async function runPrimary(options: PrimaryOptions = {}): Promise<void> {
  const first = readSettings(process.env);
  if (!first.ok) exitWithProblems('gateway', first.problems);
  let config = first.config;
  let adminTokens: AdminTokens | undefined;
  try {
    adminTokens = prepareAdmin(config);
  } catch (error) {
    exitWithProblems('gateway', [(error as Error).message]);
  }
  const logger = pino({ name: 'gateway', level: config.logLevel }, bufferedStdout());
  const node = nodeSupport(process.version);
  if (!node.supported) logger.warn({ nodeVersion: process.version }, node.message);
  warnAboutChoices(logger, config);

  const metrics = config.metrics === undefined ? undefined : createClusterMetrics(() => supervisor.serving());
  // The workers' limits in process, kept here so that they are one gateway's and outlive a worker.
  const limits = hostLimits(config.rateLimits);
  let workers = generationOf(config, first.overrides).workers;
  const admin =
    adminTokens === undefined || metrics === undefined
      ? undefined
      : primaryAdmin({
          config: () => config,
          workers: () => workers,
          // Set whenever the admin API is: a reload only ever replaces them with others.
          tokens: () => adminTokens as AdminTokens,
          limits,
          listening: () => supervisor.listening(),
          metrics: () => metrics.json(),
          logger,
        });
  const supervisor: Supervisor = createSupervisor({
    logger,
    onFork: (worker) => {
      limits.attach(worker);
      admin?.attach(worker);
      options.onFork?.(worker);
    },
    onFinalMetrics: (workerId, counters) => metrics?.departed(workerId, counters),
    onDeath: () => metrics?.died(),
  });

  let stopping = false;
  let metricsServer: Server | undefined;
  const stop = async (code: number, fields: Record<string, unknown>): Promise<never> => {
    if (!stopping) {
      stopping = true;
      if (code === 0) logger.info(fields, 'gateway draining');
      await supervisor.stop();
      metricsServer?.closeAllConnections();
      metricsServer?.close();
      await admin?.close();
      if (code === 0) logger.info({}, 'gateway stopped');
      process.exit(code);
    }
    return new Promise<never>(() => {});
  };
  process.on('SIGTERM', () => void stop(0, { signal: 'SIGTERM' }));
  process.on('SIGINT', () => void stop(0, { signal: 'SIGINT' }));
  // Registered before the first worker starts: SIGHUP's default would end the process.
  process.on('SIGHUP', () => {
    const next = readSettings(process.env);
    let nextTokens: AdminTokens | undefined;
    const problems = next.ok ? [] : [...next.problems];
    try {
      if (next.ok) nextTokens = prepareAdmin(next.config);
    } catch (error) {
      problems.push((error as Error).message);
    }
    if (!next.ok || problems.length > 0) {
      logger.error({ problems }, `reload refused, the workers keep running: ${problems.join('; ')}`);
      return;
    }
    if (next.config.metrics?.port !== config.metrics?.port || next.config.metrics?.host !== config.metrics?.host) {
      logger.warn({}, 'METRICS_PORT and METRICS_HOST take effect at the next start, not at a reload');
    }
    if ((next.config.admin === undefined) !== (config.admin === undefined)) {
      logger.warn({}, 'ADMIN_TOKEN_FILE turns the admin API on or off at the next start, not at a reload');
    }
    void supervisor.reload(generationOf(next.config, next.overrides)).then((inForce) => {
      if (inForce === undefined) return;
      config = inForce.config;
      workers = inForce.workers;
      if (nextTokens !== undefined && inForce.config === next.config) adminTokens = nextTokens;
      logger.level = config.logLevel;
      limits.reload(config.rateLimits);
      admin?.reloaded();
    });
  });
  supervisor.onFailure((code) => void stop(code, {}));

  if (metrics !== undefined && config.metrics !== undefined) {
    const { host, port } = config.metrics;
    const server = (metricsServer = createMetricsServer(metrics, admin?.handler));
    server.on('error', (error) => {
      process.stderr.write(`gateway: invalid configuration\n  - METRICS_PORT: cannot listen on ${host}:${port}: ${error.message}\n`);
      void stop(2, {});
    });
    server.listen(port, host, () => {
      const address = server.address();
      const url = `http://${host}:${typeof address === 'object' && address !== null ? address.port : port}`;
      logger.info({ metricsUrl: `${url}/metrics`, ...(admin === undefined ? {} : { adminUrl: `${url}/admin` }) }, 'metrics listening');
    });
  }

  try {
    await supervisor.start(generationOf(config, first.overrides));
  } catch (code) {
    // A worker could not start: its reason is on stderr (settings, files) or in its log (listen).
    await stop(typeof code === 'number' ? code : 1, {});
  }
}

/** The settings workers are forked with; `WORKERS=auto` is worked out here, on the machine that runs them. */
function generationOf(config: GatewayConfig, overrides: Readonly<Record<string, string>>): Generation {
  return { config, overrides, workers: config.workers === 'auto' ? autoWorkers() : config.workers };
}

function warnAboutChoices(logger: Logger, config: GatewayConfig): void {
  if (config.auth.mode === 'off') logger.warn('AUTH=off: requests are forwarded without checking API keys');
  if (config.rateLimits.mode === 'off') logger.warn('RATE_LIMITS=off: no request is limited');
}
