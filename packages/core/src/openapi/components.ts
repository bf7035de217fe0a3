import { z } from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '../schemas/list-pets-query.js';
import { ERRORS, type ErrorCode } from '../errors.js';
import { ErrorSchema, NewPet, Pet, Pets, PetStatus } from '../schemas/pet.js';

/** The components of the interface's OpenAPI document, shared by its operations. */
export type Json = Record<string, unknown>;
export const ref = (kind: string, name: string): Json => ({ $ref: `#/components/${kind}/${name}` });

const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'];
export const DEPRECATION_HEADERS = ['Deprecation', 'Sunset', 'Link'];

/** Component schemas from the zod schemas, as OpenAPI 3.1 (JSON Schema 2020-12) wants them. */
export function componentSchemas(): Json {
  const registry = z.registry<{ id: string }>();
  for (const schema of [PetStatus, NewPet, Pet, Pets, ErrorSchema]) {
    registry.add(schema, { id: (z.globalRegistry.get(schema)?.id as string | undefined) ?? '' });
  }
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    uri: (id) => `#/components/schemas/${id}`,
  });
  // Each schema is embedded in the document, not a standalone resource.
  return Object.fromEntries(Object.entries(schemas).map(([name, { $schema: _s, $id: _i, ...schema }]) => [name, schema]));
}

function headers(names: readonly string[]): Json {
  return Object.fromEntries(names.map((name) => [name, ref('headers', name)]));
}

export function response(description: string, schema: string, extraHeaders: readonly string[] = [], example?: unknown): Json {
  return {
    description,
    headers: headers([...RATE_LIMIT_HEADERS, ...extraHeaders]),
    content: { 'application/json': { schema: ref('schemas', schema), ...(example === undefined ? {} : { example }) } },
  };
}

/** An error response whose example is the Error body of `code`: the core's, or one the gateway in front of it answers with. */
export function errorResponse(description: string, code: ErrorCode | keyof typeof IN_FRONT, extraHeaders: readonly string[] = []): Json {
  const { status, message } = code in ERRORS ? ERRORS[code as ErrorCode] : IN_FRONT[code as keyof typeof IN_FRONT];
  return response(description, 'Error', extraHeaders, { code, message, status });
}

/** Errors the gateway answers with before or instead of the core (its own table is the gateway's errors.ts). */
const IN_FRONT = {
  unauthorized: { status: 401, message: 'A valid API key is required: Authorization: Bearer <API key>.' },
  rate_limited: { status: 429, message: 'Rate limit exceeded: retry after the time in Retry-After.' },
  bad_gateway: { status: 502, message: 'The upstream service could not be reached or answered invalidly.' },
  upstream_timeout: { status: 504, message: 'The upstream service did not answer in time.' },
} as const;

/** Error responses shared by the operations; each names its rate-limit headers. */
export function componentResponses(): Json {
  return {
    BadRequest: errorResponse('The request is not valid (query, path or body).', 'invalid_query'),
    Unauthorized: errorResponse('The API key is missing or invalid.', 'unauthorized', ['WWW-Authenticate']),
    NotFound: errorResponse('The requested resource could not be found.', 'pet_not_found'),
    TooManyRequests: errorResponse('Rate limit exceeded, or the key is temporarily banned. Retry after `Retry-After` seconds.', 'rate_limited', [
      'Retry-After',
    ]),
    // Answered by the gateway (or the HTTP layer) before or instead of the operation.
    MethodNotAllowed: errorResponse(
      'The path exists but not with this method; `Allow` lists its methods. Any method a path does not list answers this.',
      'method_not_allowed',
      ['Allow'],
    ),
    PayloadTooLarge: errorResponse(
      'The request body is larger than the limit (any method, a GET with a body too); the connection is closed.',
      'payload_too_large',
    ),
    HeadersTooLarge: errorResponse('The request headers are larger than the limit; the connection is closed.', 'headers_too_large'),
    BadGateway: errorResponse('The pets service could not be reached or answered invalidly.', 'bad_gateway'),
    ServiceUnavailable: errorResponse(
      'API keys, rate limits or the store cannot be checked right now. Retry after `Retry-After` seconds.',
      'store_unavailable',
      ['Retry-After'],
    ),
    GatewayTimeout: errorResponse('The pets service did not answer in time.', 'upstream_timeout'),
  };
}

export function componentHeaders(): Json {
  const integer = (description: string, minimum = 0): Json => ({
    description,
    schema: { type: 'integer', minimum },
  });
  const text = (description: string): Json => ({ description, schema: { type: 'string' } });
  return {
    'X-RateLimit-Limit': integer('The request limit of the window closest to refusing.'),
    'X-RateLimit-Remaining': integer('Requests left in that window (never negative).'),
    'X-RateLimit-Reset': integer('Unix time (seconds) at which that window admits again.'),
    'RateLimit-Policy': text('The quota policies (IETF httpapi RateLimit fields draft), e.g. `"minute";q=60;w=60, "day";q=1000;w=86400`.'),
    RateLimit: text('The remaining quota per policy (IETF draft), e.g. `"minute";r=59;t=42`.'),
    'Retry-After': integer('Seconds to wait before retrying.', 1),
    'WWW-Authenticate': text('`Bearer`, with `error="invalid_token"` when a token was sent.'),
    Deprecation: text('RFC 9745: `@<unix seconds>`, when the operation was deprecated.'),
    Sunset: text('RFC 8594: the HTTP-date after which the operation is removed.'),
    Link: text('`rel="successor-version"` and `rel="deprecation"` links; `rel="next"` on list pages.'),
    Location: text('The path of the created pet.'),
    Allow: text('The methods of this path, e.g. `GET, POST, HEAD`.'),
    'Idempotent-Replayed': text('`true` when the answer repeats an earlier request with the same Idempotency-Key.'),
  };
}

export function componentParameters(): Json {
  return {
    Limit: {
      name: 'limit',
      in: 'query',
      description: 'Maximum number of animals returned.',
      schema: { type: 'integer', minimum: 1, maximum: LIST_LIMIT_MAX, default: LIST_LIMIT_DEFAULT },
    },
    Status: { name: 'status', in: 'query', description: 'Keeps only animals with this status.', schema: ref('schemas', 'PetStatus') },
    Cursor: {
      name: 'cursor',
      in: 'query',
      description: 'Opaque position from the `rel="next"` Link of the previous page.',
      schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,32}$' },
    },
    PetId: {
      name: 'petId',
      in: 'path',
      required: true,
      description: 'ID of the animal to fetch.',
      schema: { type: 'integer', format: 'int64' },
    },
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      description: 'Makes retries safe: the same key and body return the first answer and create nothing.',
      schema: { type: 'string', pattern: '^[\\x21-\\x7E]{1,255}$' },
    },
  };
}

/** The status of each shared response. */
export const SHARED_STATUS = {
  BadRequest: '400',
  Unauthorized: '401',
  NotFound: '404',
  MethodNotAllowed: '405',
  PayloadTooLarge: '413',
  TooManyRequests: '429',
  HeadersTooLarge: '431',
  BadGateway: '502',
  ServiceUnavailable: '503',
  GatewayTimeout: '504',
} as const;
