import { settings } from '@animal-store/http-kit';
import { z } from 'zod';
import { ms, redisPrefix, redisUrl } from './env-values.js';

/** Shared state (limits, bans, revocations): with REDIS_URL, every field goes to the config's `redis`. */
export const REDIS = settings({
  url: ['REDIS_URL', redisUrl.optional()],
  cluster: ['REDIS_CLUSTER', z.stringbool().default(false)],
  prefix: ['REDIS_PREFIX', redisPrefix.default('gw')],
  commandTimeoutMs: ['REDIS_COMMAND_TIMEOUT_MS', ms.default(500)],
  // 0: decisions asked in one event-loop turn share a round trip; more waits that long for others.
  batchWindowMs: ['REDIS_BATCH_WINDOW_MS', z.coerce.number().min(0).max(10).default(0)],
});

/** The redis slice: `undefined` without REDIS_URL, and state stays in process. */
export function redisConfig(env: Readonly<Record<string, unknown>>) {
  const { url, ...redis } = REDIS.read(env);
  return url === undefined ? undefined : ({ url, ...redis } as const);
}
