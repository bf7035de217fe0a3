/**
 * What the gateway adds to any backend's OpenAPI document: the headers it sets on every answer,
 * the error answers it makes itself, the usage operation and its schemas, the bearer scheme.
 * Names follow the pets core's document, so a document that already declares one keeps its own.
 */
import { errorBody, type ErrorCode } from '../errors.js';
import { problemDetails } from '../http/problem-details.js';
import { ref, type Json } from './gateway-schemas.js';

export { ref, SCHEMAS, type Json } from './gateway-schemas.js';

/** On every answer of every operation, the gateway's own included. */
export const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'] as const;
/** On every answer of a deprecated operation. */
export const DEPRECATION_HEADERS = ['Deprecation', 'Sunset', 'Link'] as const;

export const HEADERS: Record<string, Json> = {
  'X-RateLimit-Limit': { description: 'The request limit of the window closest to refusing.', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Remaining': { description: 'Requests left in that window (never negative).', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) at which that window admits again.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Policy': {
    description: 'Every window of the plan (draft-ietf-httpapi-ratelimit-headers): `"minute";q=60;w=60, "day";q=1000;w=86400`.',
    schema: { type: 'string' },
  },
  RateLimit: { description: 'What is left of each window and when it resets, in seconds (same draft): `"minute";r=59;t=42`.', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  'WWW-Authenticate': { description: '`Bearer`, with `error="invalid_token"` when a token was sent.', schema: { type: 'string' } },
  Deprecation: { description: 'RFC 9745: `@<unix seconds>`, when the operation was deprecated.', schema: { type: 'string' } },
  Sunset: { description: 'RFC 8594: the HTTP-date after which the operation is removed.', schema: { type: 'string' } },
  Link: { description: '`rel="successor-version"` and `rel="deprecation"` links; `rel="next"` on list pages.', schema: { type: 'string' } },
};

/** The error answers the gateway makes itself, by status: component name, description, extra headers. */
export const GATEWAY_RESPONSES: Record<
  string,
  { readonly name: string; readonly description: string; readonly headers: readonly string[]; readonly example: ErrorCode }
> = {
  '401': { name: 'Unauthorized', description: 'The API key is missing or invalid (`unauthorized`).', headers: ['WWW-Authenticate'], example: 'unauthorized' },
  '413': {
    name: 'PayloadTooLarge',
    description: 'The request body is larger than the limit (`payload_too_large`); the connection is closed.',
    headers: [],
    example: 'payload_too_large',
  },
  '429': {
    name: 'TooManyRequests',
    example: 'rate_limited',
    description:
      'Rate limit exceeded (`rate_limited`), the monthly quota used up (`quota_exhausted`, until the month ends), the operation at its ceiling for all callers (`operation_limited`), the key temporarily banned (`key_banned`), or, for requests without a valid key or to no operation, the budget of the client address for them (`anonymous_rate_limited`). Retry after `Retry-After` seconds; a banned key that keeps sending stays banned.',
    headers: ['Retry-After'],
  },
  '502': { name: 'BadGateway', description: 'The backend could not be reached or answered invalidly (`bad_gateway`).', headers: [], example: 'bad_gateway' },
  '503': {
    name: 'ServiceUnavailable',
    example: 'rate_limit_unavailable',
    description: 'API keys or rate limits cannot be checked right now (`auth_unavailable`, `rate_limit_unavailable`). Retry after `Retry-After` seconds.',
    headers: ['Retry-After'],
  },
  '504': { name: 'GatewayTimeout', description: 'The backend did not answer in time (`upstream_timeout`).', headers: [], example: 'upstream_timeout' },
};

export const BEARER_SCHEME: Json = { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An API key issued by the operator.' };

/** The error content of a gateway answer: the Error body, or problem details on request, each with `code`'s as its example. */
export function errorContent(code: ErrorCode): Json {
  return {
    'application/json': { schema: ref('schemas', 'Error'), example: errorBody(code) },
    'application/problem+json': { schema: ref('schemas', 'Problem'), example: problemDetails(code) },
  };
}

/** A response with the rate-limit headers and `extra` ones, by reference to the header components. */
export function responseHeaders(extra: readonly string[]): Json {
  return Object.fromEntries([...RATE_LIMIT_HEADERS, ...extra].map((name) => [name, ref('headers', name)]));
}

/** `GET /usage`, answered by the gateway. */
export function usageOperation(): Json {
  return {
    get: {
      operationId: 'getUsage',
      summary: 'Your plan and what is left of it',
      description:
        "The caller's plan, each window's limit, remaining requests and reset time, any ban of the key, and when the key expires. Answered by the gateway, computed exactly as for a request, and charged to no window of the plan. It has a small limit of its own per key; its rate-limit headers are the plan's.",
      security: [{ bearerAuth: [] }],
      responses: {
        '200': { description: 'The usage of the plan.', headers: responseHeaders([]), content: { 'application/json': { schema: ref('schemas', 'Usage') } } },
        '401': ref('responses', 'Unauthorized'),
        '429': ref('responses', 'TooManyRequests'),
        '503': ref('responses', 'ServiceUnavailable'),
      },
    },
  };
}
