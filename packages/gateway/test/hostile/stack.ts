import { burst, startRedis, type BurstCounts, type RedisServer, waitForReady } from '@animal-store/testkit';
import { createTestKeyring } from '../support/index.js';
import { startProcess, type ServiceUnderTest } from './processes.js';

export type TestKeyring = Awaited<ReturnType<typeof createTestKeyring>>;

/** Redis, the core and gateways in front of it, as production runs them, with one keyring. */
export interface Stack {
  readonly redis: RedisServer;
  readonly core: ServiceUnderTest;
  readonly gateways: ServiceUnderTest[];
  readonly keyring: TestKeyring;
  /** The environment the gateways run with (to start more, or the keys CLI). */
  readonly gatewayEnv: Record<string, string>;
  /** An enterprise key whose limits are out of reach (load tests measure the gateway, not the plan). */
  unlimitedKey(sub: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts a private redis-server, the core, and `gateways` gateway processes with default settings
 * plus `env`: keys from a fresh keyring (its deny-list file as REVOCATIONS_FILE unless
 * `revocationsFile` is false: then Redis is the only deny-list), limits in Redis.
 * Whatever started is stopped again if a later part fails to.
 */
export async function startStack(options: {
  gateways: number;
  env?: Record<string, string>;
  coreEnv?: Record<string, string>;
  revocationsFile?: boolean;
  /** Settings of the `i`th gateway alone (its own metrics port, say), over `env`. */
  perGatewayEnv?: (i: number) => Record<string, string>;
}): Promise<Stack> {
  const started: { close(): Promise<void> }[] = [];
  const closeAll = async () => {
    for (const part of started.reverse()) await part.close().catch(() => {});
  };
  try {
    const redis = await startRedis();
    started.push(redis);
    const keyring = await createTestKeyring();
    const core = await startProcess('core', { ...options.coreEnv });
    started.push({ close: () => core.stop() });
    const gatewayEnv = {
      UPSTREAM_URL: core.url,
      JWKS_FILE: keyring.files.jwks,
      // `none`: otherwise the gateway would find the keyring's deny-list beside JWKS_FILE itself.
      REVOCATIONS_FILE: options.revocationsFile === false ? 'none' : keyring.files.revoked,
      REDIS_URL: redis.url,
      ...options.env,
    };
    const gateways: ServiceUnderTest[] = [];
    for (let i = 0; i < options.gateways; i++) {
      const gateway = await startProcess('gateway', { ...gatewayEnv, ...options.perGatewayEnv?.(i) });
      started.push({ close: () => gateway.stop() });
      gateways.push(gateway);
    }
    // Ready: Redis connected and the deny-list's copy loaded.
    for (const gateway of gateways) await waitForReady(gateway.url, 15_000);
    return {
      redis,
      core,
      gateways,
      keyring,
      gatewayEnv,
      async unlimitedKey(sub) {
        return (await keyring.issue({ plan: 'enterprise', sub, limits: { minute: 1_000_000_000, day: 1_000_000_000 } })).token;
      },
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * `count` requests at once on `token` to `/v1/pets?limit=1`, spread over the stack's gateways in turn, each on a
 * connection of its own; the requests without an answer are printed by reason.
 */
export function burstOnStack(stack: Stack, count: number, token: string): Promise<BurstCounts> {
  return burst(
    stack.gateways.map((gateway) => gateway.url),
    count,
    token,
    {
      path: '/v1/pets?limit=1',
      onNoAnswer: (reasons) => console.log(`# requests without an answer: ${JSON.stringify(reasons)}`),
    },
  );
}
