import type { NewPet, Pet, PetStatus } from '../schemas/pet.js';

/** What makes a create request a retry of an earlier one. */
export interface IdempotencyToken {
  /** Who sent it (the account the gateway names); keys of different callers never meet. */
  readonly scope: string;
  readonly key: string;
  /** A digest of the request body: the same key with another body is refused. */
  readonly fingerprint: string;
}

export type CreateResult = { readonly kind: 'created'; readonly pet: Pet } | { readonly kind: 'replayed'; readonly pet: Pet } | { readonly kind: 'key_reused' };

export interface ListQuery {
  readonly limit: number;
  readonly status?: PetStatus | undefined;
  /** Only pets with an id greater than this one (keyset pagination). */
  readonly afterId?: number | undefined;
}

export interface ListPage {
  readonly pets: readonly Pet[];
  /** True when at least one more pet matches after the last one returned. */
  readonly hasMore: boolean;
}

/**
 * Where pets live. Ids are unique and increase with creation order, so keyset pagination on the
 * id sees every pet once even while pets are being created. Store failures throw; the server maps
 * them to 503 `store_unavailable`.
 */
export interface PetStore {
  create(pet: NewPet, idempotency?: IdempotencyToken): Promise<CreateResult>;
  get(id: number): Promise<Pet | undefined>;
  list(query: ListQuery): Promise<ListPage>;
  /** Resolves when the store can serve requests. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The store could not answer (connection down, timeout); the request gets 503. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('pet store unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}
