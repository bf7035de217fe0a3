import { redisKeyNames, type RedisClient } from '../redis/index.js';

/** What a revocation in Redis reached: the gateway processes told of it, and those that said they have it. */
export interface RevokedInRedis {
  readonly told: number;
  readonly confirmed: number;
}

/** How long the revoking side waits for every process it told to say it has the revocation. */
export const CONFIRM_WAIT_MS = 2000;

/**
 * Revokes `jti` in Redis, for every gateway instance that shares it: adds it to the deny-list,
 * publishes it, and waits (at most `waitMs`) until every gateway process that received it says its
 * copy of the list has it. From then on each of them refuses the key, whether a request is decided
 * by Redis or from a lease (`ratelimit/redis/leases.ts`), which asks the copy. On a Redis Cluster a
 * publisher cannot count who it told (each node counts its own subscribers), and no process answers
 * from its copy there: the revocation is added and published, and nothing is waited for.
 */
export async function revokeInRedis(
  redis: RedisClient,
  prefix: string,
  jti: string,
  options: { readonly cluster?: boolean; readonly waitMs?: number } = {},
): Promise<RevokedInRedis> {
  const names = redisKeyNames(prefix);
  if (options.cluster === true) {
    await redis.sAdd(names.revoked, jti);
    const told = await redis.publish(names.revokedChannel, jti);
    return { told, confirmed: 0 };
  }
  const waitMs = options.waitMs ?? CONFIRM_WAIT_MS;
  let told = Number.POSITIVE_INFINITY;
  let confirmed = 0;
  let allConfirmed = () => {};
  const everyone = new Promise<void>((resolve) => (allConfirmed = resolve));
  // Listening before publishing: a process may answer before PUBLISH itself returns.
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no subscription to ${names.revokedAcks} within ${waitMs} ms`)), waitMs);
    redis.subscribe(
      names.revokedAcks,
      (message) => {
        if (message === jti && ++confirmed >= told) allConfirmed();
      },
      () => {
        clearTimeout(timer);
        resolve();
      },
    );
  });
  await redis.sAdd(names.revoked, jti);
  told = await redis.publish(names.revokedChannel, jti);
  if (confirmed >= told) allConfirmed();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([everyone, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
  clearTimeout(timer);
  return { told, confirmed: Math.min(confirmed, told) };
}
