import type { RedisClient } from '../redis/index.js';
import type { ReadinessCheck } from '../pipeline/steps/service-paths.js';

/**
 * `/readyz`'s Redis check: ready only once every connection of the request path has made a first
 * round trip since it last (re)connected, with the scripts loaded (`RedisClient.warm`) and then
 * whatever `warmMore` does (the limiter runs its script once and learns Redis's clock). So the
 * first burst sent to a gateway that says ready meets warm connections and a loaded script.
 * Warming starts by itself at each connection; a failed warm-up is tried again at the next ask.
 * Once warm, each ask is a PING.
 */
export function redisReadiness(redis: RedisClient, warmMore?: () => Promise<void>): ReadinessCheck {
  let warmed = false;
  let warming: Promise<boolean> | undefined;
  // One warm-up at a time: asks while one is under way share its outcome.
  const warm = (): Promise<boolean> =>
    (warming ??= (async () => {
      await redis.warm();
      await warmMore?.();
      return (warmed = true);
    })()
      .catch(() => false)
      .finally(() => (warming = undefined)));
  redis.onReady(() => {
    warmed = false;
    void warm();
  });
  return {
    name: 'redis',
    ready: () =>
      warmed
        ? redis.ping().then(
            () => true,
            () => false,
          )
        : warm(),
  };
}
