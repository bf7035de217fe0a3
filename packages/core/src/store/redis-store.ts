import { Redis, type Result } from 'ioredis';
import type { NewPet, Pet } from '../schemas/pet.js';
import { StoreUnavailableError, type CreateResult, type IdempotencyToken, type ListPage, type ListQuery, type PetStore } from './pet-store.js';
import { CREATE_PET, LIST_PETS } from './redis-scripts.js';
import { createHash } from 'node:crypto';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    petsCreate(...args: string[]): Result<[string, string], Context>;
    petsList(...args: string[]): Result<(string | null)[], Context>;
  }
}

export interface RedisStoreOptions {
  readonly url: string;
  /** Key prefix; used as the Cluster hash tag, so all keys of one store share a slot. */
  readonly prefix: string;
  readonly idempotencyTtlSeconds: number;
  /** Longest a command may take before the request gets 503 `store_unavailable`. */
  readonly commandTimeoutMs?: number;
}

/**
 * A store shared by any number of core instances. Ids come from one INCR inside the create script,
 * so they are unique and committed in increasing order; pages read ids and bodies in one script.
 * Durable as far as the Redis server persists (AOF in docker compose).
 */
export function createRedisStore(options: RedisStoreOptions): PetStore {
  const redis = new Redis(options.url, {
    // Fail fast while disconnected instead of queueing: the client gets a 503 it can retry.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 2000,
    lazyConnect: false,
  });
  // Reconnection is ioredis's job; without a listener an 'error' event would end the process.
  redis.on('error', () => {});
  redis.defineCommand('petsCreate', { numberOfKeys: 5, lua: CREATE_PET });
  redis.defineCommand('petsList', { numberOfKeys: 2, lua: LIST_PETS });

  const tag = `{${options.prefix}}`;
  const keys = {
    sequence: `${tag}:seq`,
    pets: `${tag}:pets`,
    allIds: `${tag}:ids`,
    status: (status: string) => `${tag}:status:${status}`,
    idempotency: (token: IdempotencyToken) => `${tag}:idem:${createHash('sha256').update(token.scope).update('\u0000').update(token.key).digest('hex')}`,
  };

  const store: PetStore = {
    async create(input: NewPet, token?: IdempotencyToken): Promise<CreateResult> {
      const body: NewPet = { name: input.name, categoryId: input.categoryId };
      if (input.status !== undefined) body.status = input.status;
      const [outcome, json] = await redis.petsCreate(
        keys.sequence,
        keys.pets,
        keys.allIds,
        keys.status(input.status ?? 'none'),
        token === undefined ? `${tag}:idem:none` : keys.idempotency(token),
        JSON.stringify(body),
        input.status === undefined ? '0' : '1',
        token === undefined ? '0' : '1',
        token?.fingerprint ?? '',
        String(options.idempotencyTtlSeconds),
      );
      if (outcome === 'key_reused') return { kind: 'key_reused' };
      return { kind: outcome === 'replayed' ? 'replayed' : 'created', pet: JSON.parse(json) as Pet };
    },

    async get(id: number): Promise<Pet | undefined> {
      const json = await redis.hget(keys.pets, String(id));
      return json === null ? undefined : (JSON.parse(json) as Pet);
    },

    async list(query: ListQuery): Promise<ListPage> {
      const zset = query.status === undefined ? keys.allIds : keys.status(query.status);
      // One extra pet tells whether another page exists.
      const rows = await redis.petsList(zset, keys.pets, String(query.afterId ?? 0), String(query.limit + 1));
      const pets = rows.filter((row): row is string => row !== null).map((row) => JSON.parse(row) as Pet);
      const hasMore = pets.length > query.limit;
      return { pets: hasMore ? pets.slice(0, query.limit) : pets, hasMore };
    },

    async ping(): Promise<void> {
      await redis.ping();
    },

    async close(): Promise<void> {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
  return reportingUnavailable(store);
}

/** Every failure of Redis becomes a StoreUnavailableError, so the server answers 503, not 500. */
function reportingUnavailable(store: PetStore): PetStore {
  const guard =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } catch (error) {
        throw new StoreUnavailableError(error);
      }
    };
  return {
    create: guard(store.create),
    get: guard(store.get),
    list: guard(store.list),
    ping: guard(store.ping),
    close: store.close,
  };
}
