import { apiErrorOf } from './api-error.js';
import { deprecationOf, rateLimitOf, type DeprecationNotice, type RateLimitState } from './response-headers.js';
import { nextStep, type RetrySettings } from './retry-policy.js';

/** One call of an operation, as the transport sends it (and sends it again). */
export interface Call {
  /** The operation's id: `listPets`, `getPet`… (for `onDeprecation`). */
  readonly operation: string;
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  readonly body?: unknown;
  readonly idempotencyKey?: string;
  readonly signal: AbortSignal | undefined;
}

export interface TransportOptions {
  readonly settings: RetrySettings;
  readonly apiKey: string;
  readonly fetch: typeof fetch;
  readonly random: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly onDeprecation: ((notice: DeprecationNotice) => void) | undefined;
  readonly onRetry: ((retry: RetryNotice) => void) | undefined;
  /** The base URL, against which relative links resolve when an answer has no URL. */
  readonly base: string;
}

/** What `onRetry` is told before each wait between attempts. */
export interface RetryNotice {
  /** The attempt about to be made after the wait: 2 for the first retry. */
  readonly attempt: number;
  /** How long the client waits before it, in milliseconds (a `Retry-After` of 61 s is 61,000). */
  readonly delayMs: number;
  /** Why: the error answer's `code` (`rate_limited`, `upstream_timeout`…) or `network_error`. */
  readonly reason: string;
  /** The `ApiError` of the answer, or what `fetch` threw. */
  readonly error: unknown;
}

/**
 * Sends calls and makes every retry decision (`nextStep`): the same request, headers and
 * Idempotency-Key on each attempt, waits that an AbortSignal ends. Remembers the latest
 * rate-limit state, and tells `onDeprecation` once per operation.
 */
export function createTransport(options: TransportOptions) {
  const { settings, random, sleep } = options;
  const authorization = `Bearer ${options.apiKey}`;
  const warned = new Set<string>();
  let lastRateLimit: RateLimitState | undefined;

  function noticeDeprecation(operation: string, response: Response): void {
    if (options.onDeprecation === undefined || warned.has(operation)) return;
    const notice = deprecationOf(operation, response.headers, response.url || options.base);
    if (notice === undefined) return;
    warned.add(operation);
    options.onDeprecation(notice);
  }

  /** Tells `onRetry` first, so that a long wait (a minute's `Retry-After`) is visible, then waits. */
  function wait(notice: RetryNotice, signal: AbortSignal | undefined): Promise<void> {
    options.onRetry?.(notice);
    return sleep(notice.delayMs, signal);
  }

  /** The answer, once it is a success; an ApiError (or the network's error) once retrying is over. */
  async function send(call: Call): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', authorization };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const replayable = call.method === 'GET' || call.idempotencyKey !== undefined;
    for (let attempt = 1; ; attempt += 1) {
      call.signal?.throwIfAborted();
      let response: Response;
      try {
        response = await options.fetch(call.url, { method: call.method, headers, body, signal: call.signal });
      } catch (failure) {
        if (call.signal?.aborted === true) throw call.signal.reason;
        const verdict = nextStep(attempt, { kind: 'network' }, replayable, settings, random);
        if (!verdict.retry) throw failure;
        await wait({ attempt: attempt + 1, delayMs: verdict.delayMs, reason: 'network_error', error: failure }, call.signal);
        continue;
      }
      lastRateLimit = rateLimitOf(response.headers) ?? lastRateLimit;
      noticeDeprecation(call.operation, response);
      if (response.ok) return response;
      const error = await apiErrorOf(response);
      const verdict = nextStep(
        attempt,
        { kind: 'answer', status: error.status, code: error.code, retryAfterSeconds: error.retryAfterSeconds },
        replayable,
        settings,
        random,
      );
      if (!verdict.retry) throw error;
      await wait({ attempt: attempt + 1, delayMs: verdict.delayMs, reason: error.code, error }, call.signal);
    }
  }

  return { send, lastRateLimit: () => lastRateLimit };
}

/** Waits `ms`; an aborted signal ends the wait with its reason. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
