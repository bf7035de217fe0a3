import type { AddressInfo } from 'node:net';
import { LISTEN_BACKLOG } from '@animal-store/http-kit';
import { pino, type Logger } from 'pino';
import { loadConfig, type GatewayConfig } from '../../src/config/index.js';
import { buildGateway } from '../../src/build-gateway.js';
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
  close(): Promise<void>;
}

/** The gateway in this process on 127.0.0.1:0, configured from `env` like the real process. */
export async function startGateway(
  env: Record<string, string>,
  now?: () => number,
  redisNow?: () => number,
  options: { readonly waitForRedis?: boolean; readonly logger?: Logger } = {},
): Promise<RunningGateway> {
  // Proxy and routing tests run without keys and limits unless they configure them.
  const auth = env.JWKS_FILE ?? env.JWKS_URL ?? env.JWKS ?? env.AUTH;
  const defaults = {
    ...(auth === undefined ? { AUTH: 'off' } : {}),
    ...(env.RATE_LIMITS === undefined && env.PLANS_FILE === undefined ? { RATE_LIMITS: 'off' } : {}),
  };
  const result = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', ...defaults, ...env });
  if (!result.ok) throw new Error(result.problems.join('; '));
  const { config } = result;
  // GATEWAY_TEST_LOG=debug shows the gateway's log lines while debugging a test.
  const built = buildGateway(config, {
    logger: options.logger ?? pino({ level: process.env.GATEWAY_TEST_LOG ?? 'silent' }),
    ...(now === undefined ? {} : { now }),
    ...(redisNow === undefined ? {} : { redisNow }),
  });
  const { server, upstream, redis } = built;
  // The client connects in the background; tests start once it has (what /readyz waits for in production).
  const connectBy = Date.now() + 10_000;
  while (
    redis !== undefined &&
    options.waitForRedis !== false &&
    !(await redis.ping().then(
      () => true,
      () => false,
    ))
  ) {
    if (Date.now() > connectBy) throw new Error('the gateway could not connect to Redis');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // As serve() listens in production.
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: LISTEN_BACKLOG }, resolve));
  const { port } = server.address() as AddressInfo;
  const { metricsServer } = built;
  if (metricsServer !== undefined) await new Promise<void>((resolve) => metricsServer.listen(0, '127.0.0.1', resolve));
  return {
    url: `${config.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    port,
    config,
    upstream,
    metricsUrl: metricsServer === undefined ? undefined : `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}/metrics`,
    adminUrl: metricsServer === undefined || config.admin === undefined ? undefined : `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}/admin`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await built.close();
    },
  };
}

/** Polls /readyz until it answers 200 (Redis connected, upstream reachable), as an orchestrator would. */
export async function waitUntilReady(url: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await fetch(`${url}/readyz`)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`${url} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
