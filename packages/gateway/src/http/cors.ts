import type { IncomingHttpHeaders } from 'node:http';

export interface CorsSettings {
  /** Exact origins allowed to call the API from a browser, or `*` for any. */
  readonly origins: readonly string[] | '*';
  /** How long a browser may reuse a preflight answer. */
  readonly maxAgeSeconds: number;
}

/**
 * Response headers a script may read besides the CORS-safelisted ones: the rate-limit state (so a
 * browser client can back off as the interface asks), the deprecation notice, paging and the new
 * pet's location, and the request id to quote in a support ticket.
 */
const EXPOSED = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit',
  'ratelimit-policy',
  'retry-after',
  'x-request-id',
  'location',
  'link',
  'deprecation',
  'sunset',
].join(', ');

/** Request headers a browser may send: the key, a JSON body, safe retries, a correlation id. */
const ALLOWED_HEADERS = 'authorization, content-type, idempotency-key, x-request-id';

/** What the CORS step decided for one request. */
export type CorsVerdict =
  /** Not a cross-origin request (no `Origin`), or CORS is off: nothing to add. */
  | { readonly kind: 'none' }
  /** An allowed origin: these headers join the answer, whatever it is. */
  | { readonly kind: 'allowed'; readonly headers: Readonly<Record<string, string>> }
  /** A preflight (`OPTIONS` with `Access-Control-Request-Method`) to answer here, 204. */
  | { readonly kind: 'preflight'; readonly headers: Readonly<Record<string, string>> }
  /** A preflight from an origin that is not allowed. */
  | { readonly kind: 'refused'; readonly origin: string };

/**
 * Builds the CORS step (Fetch standard, "CORS protocol"). Preflights are answered by the gateway
 * without a key and without reaching the backend: a browser sends them without credentials, and
 * they reveal nothing but the methods of a path. `methodsAt(path)` lists a path's methods
 * (`undefined` for a path with no operation, whose preflight is not answered here).
 */
export function createCors(settings: CorsSettings, methodsAt: (path: string) => string | undefined) {
  const anyOrigin = settings.origins === '*';
  const allowed = new Set(anyOrigin ? [] : settings.origins);

  return function cors(method: string, path: string, headers: IncomingHttpHeaders): CorsVerdict {
    const origin = headers.origin;
    if (origin === undefined) return { kind: 'none' };
    const preflight = method === 'OPTIONS' && headers['access-control-request-method'] !== undefined;
    if (!anyOrigin && !allowed.has(origin)) return preflight ? { kind: 'refused', origin } : { kind: 'none' };
    // With a list, the answer depends on the Origin: caches must key on it.
    const base: Record<string, string> = anyOrigin ? { 'access-control-allow-origin': '*' } : { 'access-control-allow-origin': origin, vary: 'origin' };
    if (!preflight) return { kind: 'allowed', headers: { ...base, 'access-control-expose-headers': EXPOSED } };
    const methods = methodsAt(path);
    if (methods === undefined) return { kind: 'none' };
    return {
      kind: 'preflight',
      headers: {
        ...base,
        'access-control-allow-methods': methods,
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': String(settings.maxAgeSeconds),
      },
    };
  };
}
