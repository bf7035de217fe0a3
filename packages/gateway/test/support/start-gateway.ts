import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import { placementOf } from '../../src/assembly/placement.js';
import { createPrimaryRole, type MemberView } from '../../src/assembly/primary-role.js';
import { createWorkerRole } from '../../src/assembly/worker-role.js';
import { prepareAdmin } from '../../src/admin/index.js';
import { loadConfig, type GatewayConfig } from '../../src/config/index.js';
import { createPort, memoryChannelPair } from '../../src/ipc/index.js';
import type { Upstream } from '../../src/proxy/index.js';

/** A gateway started in this process by `startGateway`. */
export interface RunningGateway {
  readonly url: string;
  readonly port: number;
  readonly config: GatewayConfig;
  readonly upstream: Upstream;
  /** The admin listener's `/metrics`, when METRICS_PORT is set (it listens on a port of its own). */
  readonly metricsUrl: string | undefined;
  /** The admin API and console, `…/admin` on the same listener, when ADMIN_TOKEN_FILE is set too. */
  readonly adminUrl: string | undefined;
  /** Each worker half's own URL (`url` is the first's): more than one with the option `workerHalves`. */
  readonly workerUrls: readonly string[];
  close(): Promise<void>;
}

/**
 * The gateway in this process on 127.0.0.1:0, configured from `env` like the real process, and
 * assembled by the same code: the primary's half (`createPrimaryRole`) and one worker's
 * (`createWorkerRole`), joined by a channel in memory instead of the cluster's. `WORKERS` is 1
 * unless `env` says otherwise (with 2 or more and no Redis, the limits are the primary half's, as
 * a gateway of several workers keeps them); the one worker half serves every request, unless
 * `workerHalves` asks for more (each then listens on a port of its own: `workerUrls`).
 */
export async function startGateway(
  env: Record<string, string>,
  now?: () => number,
  redisNow?: () => number,
  options: {
    readonly waitForRedis?: boolean;
    readonly logger?: Logger;
    /** Worker halves to run (1), each on a port of its own, so a test can send each worker its own requests. */
    readonly workerHalves?: number;
  } = {},
): Promise<RunningGateway> {
  // Proxy and routing tests run without keys and limits unless they configure them.
  const auth = env.JWKS_FILE ?? env.JWKS_URL ?? env.JWKS ?? env.AUTH;
  const defaults = {
    WORKERS: '1',
    ...(auth === undefined ? { AUTH: 'off' } : {}),
    ...(env.RATE_LIMITS === undefined && env.PLANS_FILE === undefined ? { RATE_LIMITS: 'off' } : {}),
  };
  const result = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', ...defaults, ...env });
  if (!result.ok) throw new Error(result.problems.join('; '));
  const { config } = result;
  const placement = placementOf(config, config.workers === 'auto' ? 1 : config.workers);
  // GATEWAY_TEST_LOG=debug shows the gateway's log lines while debugging a test.
  const logger = options.logger ?? pino({ level: process.env.GATEWAY_TEST_LOG ?? 'silent' });
  const tokens = prepareAdmin(config);
  let state: MemberView['state'] = 'starting';
  const halves = Array.from({ length: options.workerHalves ?? 1 }, (_, i) => {
    const channel = memoryChannelPair();
    const member = {
      id: i + 1,
      pid: process.pid,
      port: createPort(channel.primary),
      get state() {
        return state;
      },
    };
    return { channel, member };
  });
  const primary = createPrimaryRole({
    config: () => config,
    placement: () => placement,
    tokens: () => tokens,
    members: () => halves.map((half) => half.member),
    starting: () => state === 'starting',
    logger,
    now,
    redisNow,
  });
  const workers = halves.map(({ channel, member }) => {
    primary.attach(member);
    return createWorkerRole(config, { logger, placement, port: createPort(channel.worker), id: member.id, now, redisNow });
  });
  const worker = workers[0] as (typeof workers)[number];
  const { server } = worker;
  const connectBy = Date.now() + 10_000;
  for (const { redis: client } of workers) {
    while (
      client !== undefined &&
      options.waitForRedis !== false &&
      !(await client.ping().then(
        () => true,
        () => false,
      ))
    ) {
      if (Date.now() > connectBy) throw new Error('the gateway could not connect to Redis');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const workerUrls: string[] = [];
  for (const half of workers) workerUrls.push(await half.listen({ port: 0, host: '127.0.0.1' }));
  const url = workerUrls[0] as string;
  state = 'listening';
  const { port } = server.address() as AddressInfo;
  const { metricsServer } = primary;
  if (metricsServer !== undefined) await new Promise<void>((resolve) => metricsServer.listen(0, '127.0.0.1', resolve));
  const adminAt = metricsServer === undefined ? undefined : `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}`;
  return {
    url,
    port,
    config,
    upstream: worker.upstream,
    metricsUrl: adminAt === undefined ? undefined : `${adminAt}/metrics`,
    adminUrl: adminAt === undefined || config.admin === undefined ? undefined : `${adminAt}/admin`,
    workerUrls,
    async close() {
      for (const half of workers) (half.server as typeof server).closeAllConnections();
      for (const half of workers) await half.stop('drain');
      for (const { channel } of halves) channel.close();
      await primary.close();
    },
  };
}
