import type { CoreConfig } from '../config.js';
import { createMemoryStore } from './memory-store.js';
import type { PetStore } from './pet-store.js';
import { createRedisStore } from './redis-store.js';

export type { CreateResult, IdempotencyToken, ListPage, ListQuery, PetStore } from './pet-store.js';
export { StoreUnavailableError } from './pet-store.js';
export { createMemoryStore } from './memory-store.js';
export { createRedisStore } from './redis-store.js';

/** The store the configuration names. */
export function createStore(config: CoreConfig): PetStore {
  const { store } = config;
  if (store.kind === 'redis') {
    return createRedisStore({
      url: store.url,
      prefix: store.prefix,
      idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    });
  }
  return createMemoryStore({ idempotencyTtlSeconds: config.idempotencyTtlSeconds });
}
