import { ApiError } from './api-error.js';
import type { AnimalStoreClient, CallOptions, ClientOptions, CreateOptions, ListOptions, PetPage } from './client-types.js';
import { parseLinks, type DeprecationNotice, type RateLimitState } from './response-headers.js';
import { DEFAULT_RETRY, type RetrySettings } from './retry-policy.js';
import { abortableSleep, createTransport } from './transport.js';
import type { NewPet, Pet, Usage } from './types.js';

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
