import { redisKeyNames, type RedisClient } from '../redis/index.js';

/** What a revocation in Redis reached: the gateway processes told of it, and those that said they have it. */
export interface RevokedInRedis {
  readonly told: number;
  readonly confirmed: number;
}

/** How long the revoking side waits for every process it told to say it has the revocation. */
export const CONFIRM_WAIT_MS = 2000;

interface Waiting {
  told: number;
  confirmed: number;
  done(): void;
}

/**
 * Returns `revokeInRedis(jti)`, for every gateway instance that shares `redis`: it adds the key to
 * the deny-list, publishes it, and waits (at most `waitMs`) until every gateway process that
 * received it says its copy of the list has it. From then on each of them refuses the key, whether
 * a request is decided by Redis or from a lease (`ratelimit/redis/leases.ts`), which asks the copy.
 * The confirmations are heard on one subscription, made at the first revocation and kept with the
 * client. On a Redis Cluster a publisher cannot count who it told (each node counts its own
 * subscribers), and no process answers from its copy there: the key is added and published, and
 * nothing is waited for.
 */
export function createRedisRevoker(
  redis: RedisClient,
  prefix: string,
  options: { readonly cluster?: boolean; readonly waitMs?: number } = {},
): (jti: string) => Promise<RevokedInRedis> {
  const names = redisKeyNames(prefix);
  const waitMs = options.waitMs ?? CONFIRM_WAIT_MS;
  const waiting = new Map<string, Set<Waiting>>();
  let listening: Promise<void> | undefined;

  /** The subscription to the confirmations, in place; made once (again only if it never was). */
  const listen = () =>
    (listening ??= new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        listening = undefined;
        reject(new Error(`Redis did not subscribe this process to the gateways' confirmations (${names.revokedAcks}) within ${waitMs} ms`));
      }, waitMs);
      redis.subscribe(
        names.revokedAcks,
        (jti) => {
          for (const one of waiting.get(jti) ?? []) if (++one.confirmed >= one.told) one.done();
        },
        () => {
          clearTimeout(timer);
          resolve();
        },
      );
    }));

  return async function revokeInRedis(jti) {
    if (options.cluster === true) {
      await redis.sAdd(names.revoked, jti);
      return { told: await redis.publish(names.revokedChannel, jti), confirmed: 0 };
    }
    // Into the set first: a Redis that does not answer fails here, at once, in a command's words.
    await redis.sAdd(names.revoked, jti);
    // Listening before publishing: a process may answer before PUBLISH itself returns.
    await listen();
    let done = () => {};
    const everyone = new Promise<void>((resolve) => (done = resolve));
    const one: Waiting = { told: Number.POSITIVE_INFINITY, confirmed: 0, done };
    const set = waiting.get(jti) ?? new Set<Waiting>();
    waiting.set(jti, set.add(one));
    let timer: NodeJS.Timeout | undefined;
    try {
      one.told = await redis.publish(names.revokedChannel, jti);
      if (one.confirmed >= one.told) done();
      await Promise.race([everyone, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      return { told: one.told, confirmed: Math.min(one.confirmed, one.told) };
    } finally {
      clearTimeout(timer);
      set.delete(one);
      if (set.size === 0) waiting.delete(jti);
    }
  };
}
