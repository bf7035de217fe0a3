import { ApiError } from './api-error.js';
import { parseLinks, type DeprecationNotice, type RateLimitState } from './response-headers.js';
import { DEFAULT_RETRY, type RetrySettings } from './retry-policy.js';
import { abortableSleep, createTransport, type RetryNotice } from './transport.js';
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

/**
 * A client of the Animal Store API that keeps the interface's side of the rate-limit contract:
 * it waits for `Retry-After` on a 429, never retries a banned key, backs off exponentially with
 * full jitter on 502/503/504 and network errors (only for calls safe to repeat), and gives every
 * create an `Idempotency-Key`. Failures throw `ApiError`.
 */
export function createClient(options: ClientOptions): AnimalStoreClient {
  const base = baseUrlOf(options.baseUrl);
  const origin = new URL(base).origin;
  if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('apiKey must be a non-empty string');
  const settings: RetrySettings = {
    ...DEFAULT_RETRY,
    ...(options.retry?.maxAttempts === undefined ? {} : { maxAttempts: options.retry.maxAttempts }),
    ...(options.retry?.maxDelayMs === undefined ? {} : { maxDelayMs: options.retry.maxDelayMs }),
  };
  if (!Number.isInteger(settings.maxAttempts) || settings.maxAttempts < 1) throw new TypeError('retry.maxAttempts must be an integer ≥ 1');
  if (!(settings.maxDelayMs >= 0)) throw new TypeError('retry.maxDelayMs must be a number ≥ 0');
  const transport = createTransport({
    settings,
    apiKey: options.apiKey,
    fetch: options.fetch ?? globalThis.fetch,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? abortableSleep,
    onDeprecation: options.onDeprecation,
    onRetry: options.onRetry,
    base,
  });
  const send = transport.send;

  const listUrl = (query: ListOptions = {}): URL => {
    const url = new URL(`${base}/pets`);
    if (query.limit !== undefined) url.searchParams.set('limit', String(query.limit));
    if (query.status !== undefined) url.searchParams.set('status', query.status);
    if (query.cursor !== undefined) url.searchParams.set('cursor', query.cursor);
    return url;
  };

  /** One page at `url`, and the address of the next from its `Link: <…>; rel="next"`. */
  const fetchPage = async (url: URL, signal: AbortSignal | undefined): Promise<{ pets: Pet[]; next: URL | undefined }> => {
    const response = await send({ operation: 'listPets', method: 'GET', url, signal });
    const pets = (await response.json()) as Pet[];
    const next = parseLinks(response.headers.get('link'), url.href).find((link) => link.rels.includes('next'));
    return { pets, next: next === undefined ? undefined : new URL(next.href) };
  };

  return {
    get lastRateLimit() {
      return transport.lastRateLimit();
    },
    async listPets(query, callOptions) {
      const response = await send({ operation: 'listPets', method: 'GET', url: listUrl(query), signal: callOptions?.signal });
      return (await response.json()) as Pet[];
    },
    async listPetsPage(query, callOptions) {
      const { pets, next } = await fetchPage(listUrl(query), callOptions?.signal);
      if (next === undefined) return { pets, nextCursor: undefined };
      const nextCursor = next.searchParams.get('cursor');
      // A next page this client could not ask for by cursor must not pass for the last one.
      if (nextCursor === null || nextCursor === '')
        throw new ApiError({ status: 0, code: 'unexpected_response', message: 'The next page link carries no cursor; follow it with allPets.' });
      return { pets, nextCursor };
    },
    async *allPets(query, callOptions) {
      let url: URL | undefined = listUrl(query);
      while (url !== undefined) {
        // The key goes with every page: never to another origin than the API's.
        if (url.origin !== origin)
          throw new ApiError({
            status: 0,
            code: 'unexpected_response',
            message: `The next page is on another origin (${url.origin}); not following it with the API key.`,
          });
        const page: { pets: Pet[]; next: URL | undefined } = await fetchPage(url, callOptions?.signal);
        url = page.next;
        yield* page.pets;
      }
    },
    async createPet(pet, callOptions) {
      const idempotencyKey = callOptions?.idempotencyKey ?? globalThis.crypto.randomUUID();
      const response = await send({
        operation: 'createPet',
        method: 'POST',
        url: new URL(`${base}/pets`),
        body: pet,
        idempotencyKey,
        signal: callOptions?.signal,
      });
      return (await response.json()) as Pet;
    },
    async getPet(id, callOptions) {
      if (!Number.isSafeInteger(id)) throw new TypeError('id must be an integer');
      const response = await send({ operation: 'getPet', method: 'GET', url: new URL(`${base}/pets/${id}`), signal: callOptions?.signal });
      return (await response.json()) as Pet;
    },
    async usage(callOptions) {
      const response = await send({ operation: 'getUsage', method: 'GET', url: new URL(`${base}/usage`), signal: callOptions?.signal });
      return (await response.json()) as Usage;
    },
  };
}

/**
 * `baseUrl` checked and made the prefix of every path: an http(s) URL, its path kept whatever it
 * is (the gateway's PUBLIC_BASE_PATH may be `/`, `/v1` or `/api/pets`), without trailing slash,
 * query or fragment. `http://host/` gives `http://host`, so `/pets` follows it once.
 */
function baseUrlOf(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl is not a URL: ${baseUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('baseUrl must be http: or https:');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

export { ApiError };
