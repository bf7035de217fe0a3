import { bufferedStdout, exitWithProblems, nodeSupport } from '@animal-store/http-kit';
import { pino, type Logger } from 'pino';
import { placementOf } from '../assembly/placement.js';
import { createPrimaryRole } from '../assembly/primary-role.js';
import { prepareAdmin, type AdminTokens } from '../admin/index.js';
import type { GatewayConfig } from '../config/index.js';
import { autoWorkers } from './available-cores.js';
import { readSettings } from './settings-source.js';
import type { Generation } from './members.js';
import { createSupervisor, type Supervisor } from './supervisor.js';

/**
 * The gateway's primary process: reads and checks the settings (invalid: exit 2 before any worker
 * starts), decides where the state lives (the placement), forks `WORKERS` workers that serve, runs
 * the primary's half (`createPrimaryRole`: the limits it keeps for them, `/metrics` summed and the
 * admin API on the admin listener), and handles the signals: SIGTERM and SIGINT drain every worker
 * and exit 0, SIGHUP reads the settings again and replaces the workers one at a time. It serves no
 * request itself.
 */
export async function runPrimary(): Promise<void> {
  const first = readSettings(process.env);
  if (!first.ok) exitWithProblems('gateway', first.problems);
  let adminTokens: AdminTokens | undefined;
  try {
    adminTokens = prepareAdmin(first.config);
  } catch (error) {
    exitWithProblems('gateway', [(error as Error).message]);
  }
  let inForce = generationOf(first.config, first.overrides);
  const logger = pino({ name: 'gateway', level: inForce.config.logLevel }, bufferedStdout());
  const node = nodeSupport(process.version);
  if (!node.supported) logger.warn({ nodeVersion: process.version }, node.message);
  warnAboutChoices(logger, inForce.config);

  const role = createPrimaryRole({
    config: () => inForce.config,
    placement: () => inForce.placement,
    tokens: () => adminTokens,
    members: () => supervisor.members(),
    starting: () => supervisor.starting(),
    logger,
  });
  const supervisor: Supervisor = createSupervisor({
    logger,
    onFork: (member) => role.attach(member),
    onFinalMetrics: (workerId, counters) => role.metrics?.departed(workerId, counters),
    onDeath: () => role.metrics?.died(),
  });

  let stopping = false;
  const stop = async (code: number, fields: Record<string, unknown>): Promise<never> => {
    if (!stopping) {
      stopping = true;
      if (code === 0) logger.info(fields, 'gateway draining');
      await supervisor.stop();
      await role.close();
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
    const { config } = inForce;
    if (next.config.metrics?.port !== config.metrics?.port || next.config.metrics?.host !== config.metrics?.host) {
      logger.warn({}, 'METRICS_PORT and METRICS_HOST take effect at the next start, not at a reload');
    }
    if ((next.config.admin === undefined) !== (config.admin === undefined)) {
      logger.warn({}, 'ADMIN_TOKEN_FILE turns the admin API on or off at the next start, not at a reload');
    }
    const target = generationOf(next.config, next.overrides);
    void supervisor.reload(target).then((settled) => {
      if (settled === undefined) return;
      inForce = settled;
      if (nextTokens !== undefined && settled === target) adminTokens = nextTokens;
      logger.level = settled.config.logLevel;
      role.reloaded();
    });
  });
  supervisor.onFailure((code) => void stop(code, {}));

  const { metricsServer } = role;
  const { metrics } = inForce.config;
  if (metricsServer !== undefined && metrics !== undefined) {
    metricsServer.on('error', (error) => {
      process.stderr.write(`gateway: invalid configuration\n  - METRICS_PORT: cannot listen on ${metrics.host}:${metrics.port}: ${error.message}\n`);
      void stop(2, {});
    });
    metricsServer.listen(metrics.port, metrics.host, () => {
      const address = metricsServer.address();
      const url = `http://${metrics.host}:${typeof address === 'object' && address !== null ? address.port : metrics.port}`;
      logger.info({ metricsUrl: `${url}/metrics`, ...(adminTokens === undefined ? {} : { adminUrl: `${url}/admin` }) }, 'metrics listening');
    });
  }

  try {
    await supervisor.start(inForce);
  } catch (code) {
    // A worker could not start: its reason is on stderr (settings, files) or in its log (listen).
    await stop(typeof code === 'number' ? code : 1, {});
  }
}

/** The settings workers are forked with: `WORKERS=auto` is worked out here, on the machine that runs them, and the placement with it. */
function generationOf(config: GatewayConfig, overrides: Readonly<Record<string, string>>): Generation {
  const workers = config.workers === 'auto' ? autoWorkers() : config.workers;
  return { config, overrides, workers, placement: placementOf(config, workers) };
}

function warnAboutChoices(logger: Logger, config: GatewayConfig): void {
  if (config.auth.mode === 'off') logger.warn('AUTH=off: requests are forwarded without checking API keys');
  if (config.rateLimits.mode === 'off') logger.warn('RATE_LIMITS=off: no request is limited');
}
