import { CONFIRM_WAIT_MS, createRedisRevoker, type RevokedInRedis } from '../auth/index.js';
import type { CliEnv } from '../config/cli-env.js';
import { KeyringError } from '../keyring/index.js';
import { createRedisClient, redisFailure, redisKeyNames } from '../redis/index.js';

/** What a revocation in Redis reached, in words. */
export function revokedReach({ told, confirmed }: RevokedInRedis, cluster: boolean): string {
  if (cluster || confirmed >= told) return `refused from the next request by every gateway${cluster ? '' : ` (${confirmed} gateway processes confirmed)`}`;
  return (
    `refused from the next request by every gateway that decides in Redis; ${told - confirmed} of ${told} gateway processes did not confirm ` +
    `within ${CONFIRM_WAIT_MS / 1000} s: those answering from leases refuse it once they read the deny-list again (every 5 s)`
  );
}

/**
 * Revokes `jti` in Redis too, for gateways that share revocations only there: at once (into the
 * deny-list, published so every gateway's copy learns it now and a Redis that dies right after
 * cannot take it along; resolves with how many gateway processes confirmed it), or from a later
 * date (into the hash of pending revocations, which the gateways move into the deny-list when the
 * date comes). `done` says what the file already holds.
 */
export async function denyInRedis(env: CliEnv, jti: string, from: number, done: string): Promise<RevokedInRedis | undefined> {
  const redis = createRedisClient(env.REDIS_URL as string, { commandTimeoutMs: 2000, cluster: env.REDIS_CLUSTER });
  try {
    await waitForRedis(redis, env.REDIS_URL as string);
    if (from > Date.now()) {
      await redis.hSet(redisKeyNames(env.REDIS_PREFIX).revokedLater, { [jti]: String(from) });
      return undefined;
    }
    // Every gateway process told says its copy has it: from then on each refuses the key.
    return await createRedisRevoker(redis, env.REDIS_PREFIX, { cluster: env.REDIS_CLUSTER })(jti);
  } catch (error) {
    throw new KeyringError(
      `${done}, but NOT in Redis (${error instanceof KeyringError ? error.message : redisFailure(error)}): gateways that read only Redis still accept it; run this again once Redis answers`,
    );
  } finally {
    await redis.close();
  }
}

/** How long a one-shot command waits for Redis to answer at all. */
const CONNECT_WAIT_MS = 5000;

/**
 * The client connects in the background; a one-shot command waits for it (bounded). Failing, it
 * names the Redis by host and port (the URL may hold a password), in the gateway's words.
 */
async function waitForRedis(redis: ReturnType<typeof createRedisClient>, url: string): Promise<void> {
  const deadline = Date.now() + CONNECT_WAIT_MS;
  for (;;) {
    try {
      await redis.ping();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new KeyringError(`${redisFailure(error, `Redis at ${new URL(url).host}`)} (${CONNECT_WAIT_MS / 1000} s)`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
