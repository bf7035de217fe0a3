import type { RateLimitState, DeprecationNotice } from './response-headers.js';
import type { RetryNotice } from './transport.js';
import type { NewPet, Pet, PetStatus, Usage } from './types.js';

export interface ClientOptions {
  /**
   * The API's base address, with the gateway's public base path if it has one:
   * `https://api.animal-store.example/v1`, `http://localhost:8080/api/pets`, or `http://localhost:8080/`
   * when the gateway serves the API at the root (`PUBLIC_BASE_PATH=/`). A trailing slash is ignored.
   */
  readonly baseUrl: string;
  /** The API key, sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey: string;
  readonly retry?: {
    /** Attempts per call, the first included (default 4; 1 turns retries off). */
    readonly maxAttempts?: number;
    /** The longest the client waits before one retry (default 120,000 ms: a minute window's wait, with room; never a day's): a longer `Retry-After` fails at once. */
    readonly maxDelayMs?: number;
  };
  /** The `fetch` to use (default: the global one). */
  readonly fetch?: typeof fetch;
  /** Called once per operation, the first time one of its answers carries `Deprecation`. */
  readonly onDeprecation?: (notice: DeprecationNotice) => void;
  /** Called before each wait between attempts, with the coming attempt, the wait and its reason. */
  readonly onRetry?: (retry: RetryNotice) => void;
  /** A number in [0, 1) for the backoff's jitter (default `Math.random`); tests inject their own. */
  readonly random?: () => number;
  /** Waits `ms`, rejecting with the signal's reason when it aborts; tests inject their own. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface CallOptions {
  /** Aborts the call, its waits between retries included. */
  readonly signal?: AbortSignal;
}

export interface ListOptions {
  readonly status?: PetStatus;
  /** Page size: 1 to 100 (the service's default is 20). */
  readonly limit?: number;
  /**
   * Where the page starts: the `nextCursor` of the page before (`listPetsPage`), with the same
   * `status` and `limit`. Absent, the first page. Opaque; one the service did not issue is a
   * `400 invalid_cursor`.
   */
  readonly cursor?: string;
}

/** One page of pets and where the next one starts. */
export interface PetPage {
  readonly pets: Pet[];
  /** The `cursor` of the next page (from `Link: <…>; rel="next"`); `undefined` on the last page. */
  readonly nextCursor: string | undefined;
}

export interface CreateOptions extends CallOptions {
  /** Makes the create safe to repeat; generated per call when not given, and reused by its retries. */
  readonly idempotencyKey?: string;
}

export interface AnimalStoreClient {
  /** One page of pets (`listPets`). */
  listPets(query?: ListOptions, options?: CallOptions): Promise<Pet[]>;
  /** One page of pets (`listPets`) and the cursor of the next, to fetch the pages one at a time. */
  listPetsPage(query?: ListOptions, options?: CallOptions): Promise<PetPage>;
  /** Every pet, page after page (from `cursor` when given), following `Link: <…>; rel="next"`. */
  allPets(query?: ListOptions, options?: CallOptions): AsyncIterable<Pet>;
  /** Adds a pet (`createPet`); its retries carry the same `Idempotency-Key`, so it is created once. */
  createPet(pet: NewPet, options?: CreateOptions): Promise<Pet>;
  /**
   * One pet by id (`getPet`).
   * @deprecated The API deprecates `GET /pets/{petId}` (sunset 2030-12-05): use `listPets` or
   * `allPets` with a `status`, and keep the pets you need by id.
   */
  getPet(id: number, options?: CallOptions): Promise<Pet>;
  /** The caller's plan, what is left of each window, any ban and the key's expiry; charges nothing. */
  usage(options?: CallOptions): Promise<Usage>;
  /** The `X-RateLimit-*` headers of the latest answer, `undefined` before the first. */
  readonly lastRateLimit: RateLimitState | undefined;
}
