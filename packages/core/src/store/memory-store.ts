import type { NewPet, Pet, PetStatus } from '../schemas/pet.js';
import type { CreateResult, IdempotencyToken, ListPage, ListQuery, PetStore } from './pet-store.js';

export interface MemoryStoreOptions {
  readonly idempotencyTtlSeconds: number;
  /** Milliseconds since the epoch; injected so tests control expiry. */
  readonly now?: () => number;
}

interface IdempotencyRecord {
  readonly fingerprint: string;
  readonly petId: number;
  readonly expiresAt: number;
}

/**
 * A single-process store. Pets are kept in id order (ids only grow), so a page is a binary search
 * and a slice. Every method completes synchronously, which makes create atomic.
 */
export function createMemoryStore(options: MemoryStoreOptions): PetStore {
  const now = options.now ?? Date.now;
  const ttlMs = options.idempotencyTtlSeconds * 1000;
  const byId = new Map<number, Pet>();
  const allIds: number[] = [];
  const idsByStatus = new Map<PetStatus, number[]>();
  // Insertion order is expiry order (one TTL for all), so expired records sit at the front.
  const idempotency = new Map<string, IdempotencyRecord>();
  let lastId = 0;

  function forgetExpired(at: number): void {
    for (const [key, record] of idempotency) {
      if (record.expiresAt > at) break;
      idempotency.delete(key);
    }
  }

  function insert(input: NewPet): Pet {
    lastId += 1;
    const pet: Pet = Object.freeze({ id: lastId, ...input });
    byId.set(pet.id, pet);
    allIds.push(pet.id);
    if (pet.status !== undefined) {
      let ids = idsByStatus.get(pet.status);
      if (ids === undefined) idsByStatus.set(pet.status, (ids = []));
      ids.push(pet.id);
    }
    return pet;
  }

  return {
    async create(input: NewPet, token?: IdempotencyToken): Promise<CreateResult> {
      if (token === undefined) return { kind: 'created', pet: insert(input) };
      const at = now();
      forgetExpired(at);
      const recordKey = `${token.scope}\u0000${token.key}`;
      const prior = idempotency.get(recordKey);
      if (prior !== undefined) {
        if (prior.fingerprint !== token.fingerprint) return { kind: 'key_reused' };
        return { kind: 'replayed', pet: byId.get(prior.petId) as Pet };
      }
      const pet = insert(input);
      idempotency.set(recordKey, { fingerprint: token.fingerprint, petId: pet.id, expiresAt: at + ttlMs });
      return { kind: 'created', pet };
    },

    async get(id: number): Promise<Pet | undefined> {
      return byId.get(id);
    },

    async list(query: ListQuery): Promise<ListPage> {
      const ids = query.status === undefined ? allIds : (idsByStatus.get(query.status) ?? []);
      const start = firstGreaterThan(ids, query.afterId ?? 0);
      const page = ids.slice(start, start + query.limit).map((id) => byId.get(id) as Pet);
      return { pets: page, hasMore: start + query.limit < ids.length };
    },

    async ping(): Promise<void> {},

    async close(): Promise<void> {},
  };
}

/** Index of the first element of the ascending `ids` greater than `after`. */
function firstGreaterThan(ids: readonly number[], after: number): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((ids[mid] as number) <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}
