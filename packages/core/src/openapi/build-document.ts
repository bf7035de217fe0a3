import { z } from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '../schemas/list-pets-query.js';
import { ErrorSchema, NewPet, Pet, Pets, PetStatus } from '../schemas/pet.js';

/** The removal date the interface gives for getPet; the gateway turns it into `Sunset`. */
export const GET_PET_SUNSET = '2030-12-05T00:00:00Z';
/** When getPet was marked deprecated (interface 1.0.0 as published here); `Deprecation` header. */
export const GET_PET_DEPRECATED_AT = '2026-11-22T00:00:00Z';
export const GET_PET_SUCCESSOR = '/v1/pets?status=available';

type Json = Record<string, unknown>;
const ref = (kind: string, name: string): Json => ({ $ref: `#/components/${kind}/${name}` });

const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'];
const DEPRECATION_HEADERS = ['Deprecation', 'Sunset', 'Link'];

/** Component schemas from the zod schemas, as OpenAPI 3.1 (JSON Schema 2020-12) wants them. */
function componentSchemas(): Json {
  const registry = z.registry<{ id: string }>();
  for (const schema of [PetStatus, NewPet, Pet, Pets, ErrorSchema]) {
    registry.add(schema, { id: (z.globalRegistry.get(schema)?.id as string | undefined) ?? '' });
  }
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    uri: (id) => `#/components/schemas/${id}`,
  });
  // Each schema is embedded in the document, not a standalone resource.
  return Object.fromEntries(
    Object.entries(schemas).map(([name, { $schema: _s, $id: _i, ...schema }]) => [name, schema]),
  );
}

function headers(names: readonly string[]): Json {
  return Object.fromEntries(names.map((name) => [name, ref('headers', name)]));
}

function response(description: string, schema: string, extraHeaders: readonly string[] = []): Json {
  return {
    description,
    headers: headers([...RATE_LIMIT_HEADERS, ...extraHeaders]),
    content: { 'application/json': { schema: ref('schemas', schema) } },
  };
}

/** Error responses shared by the operations; each names its rate-limit headers. */
function componentResponses(): Json {
  return {
    BadRequest: response('The request is not valid (query, path or body).', 'Error'),
    Unauthorized: response('The API key is missing or invalid.', 'Error', ['WWW-Authenticate']),
    NotFound: response('The requested resource could not be found.', 'Error'),
    TooManyRequests: response(
      'Rate limit exceeded, or the key is temporarily banned. Retry after `Retry-After` seconds.',
      'Error',
      ['Retry-After'],
    ),
    // Answered by the gateway (or the HTTP layer) before or instead of the operation.
    MethodNotAllowed: response('The path exists but not with this method; `Allow` lists its methods. Any method a path does not list answers this.', 'Error', ['Allow']),
    PayloadTooLarge: response('The request body is larger than the limit (any method, a GET with a body too); the connection is closed.', 'Error'),
    HeadersTooLarge: response('The request headers are larger than the limit; the connection is closed.', 'Error'),
    BadGateway: response('The pets service could not be reached or answered invalidly.', 'Error'),
    ServiceUnavailable: response('API keys, rate limits or the store cannot be checked right now. Retry after `Retry-After` seconds.', 'Error', ['Retry-After']),
    GatewayTimeout: response('The pets service did not answer in time.', 'Error'),
  };
}

function componentHeaders(): Json {
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

function componentParameters(): Json {
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
const SHARED_STATUS = {
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

function paths(): Json {
  const errorsOf = (...names: (keyof typeof SHARED_STATUS)[]): Json => Object.fromEntries(names.map((name) => [SHARED_STATUS[name], ref('responses', name)]));
  /** What any operation may get from the layers in front of it: the gateway and the HTTP parser. */
  const inFront = (): Json => errorsOf('PayloadTooLarge', 'HeadersTooLarge', 'BadGateway', 'ServiceUnavailable', 'GatewayTimeout');
  return {
    '/pets': {
      get: {
        operationId: 'listPets',
        summary: 'List animals',
        description: 'A page of animals in id order. Further pages: follow the `rel="next"` Link header.',
        parameters: [ref('parameters', 'Limit'), ref('parameters', 'Status'), ref('parameters', 'Cursor')],
        responses: {
          '200': response('A page of animals.', 'Pets', ['Link']),
          ...errorsOf('BadRequest', 'Unauthorized', 'TooManyRequests'),
          ...inFront(),
        },
      },
      post: {
        operationId: 'createPet',
        summary: 'Add an animal',
        parameters: [ref('parameters', 'IdempotencyKey')],
        requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'NewPet') } } },
        responses: {
          '201': response('Animal added.', 'Pet', ['Location', 'Idempotent-Replayed']),
          ...errorsOf('BadRequest', 'Unauthorized'),
          '415': response('The body is not application/json.', 'Error'),
          '422': response('The Idempotency-Key was used before with another body.', 'Error'),
          ...errorsOf('TooManyRequests'),
          ...inFront(),
        },
      },
    },
    '/pets/{petId}': {
      get: {
        operationId: 'getPet',
        summary: 'Fetch one animal by id',
        description: 'Deprecated: removed on 5 December 2030. Use `GET /pets` with the `status` filter.',
        deprecated: true,
        'x-deprecated-at': GET_PET_DEPRECATED_AT,
        'x-sunset': GET_PET_SUNSET,
        'x-successor-version': GET_PET_SUCCESSOR,
        parameters: [ref('parameters', 'PetId')],
        responses: {
          '200': response('The animal.', 'Pet', DEPRECATION_HEADERS),
          ...errorsOf('BadRequest', 'Unauthorized', 'NotFound', 'TooManyRequests'),
          ...inFront(),
        },
      },
    },
    '/store/orders': {
      get: {
        operationId: 'listStoreOrders',
        summary: 'Store orders (not available in 1.0.0)',
        description:
          'The interface refers to this endpoint but does not define it. It is routed, authenticated and rate limited like every operation, and answers 501 `not_implemented` until a version defines it.',
        responses: {
          '501': response('Not available in this version.', 'Error'),
          ...errorsOf('Unauthorized', 'TooManyRequests'),
          ...inFront(),
        },
      },
    },
  };
}

/** The OpenAPI 3.1 document of the whole interface, derived from the zod schemas. */
export function buildOpenApiDocument(): Json {
  const server = (host: string, description: string): Json => ({
    url: 'https://{host}/v1',
    description,
    variables: { host: { default: host, description: `Host of the ${description.toLowerCase()} deployment.` } },
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Animal Store',
      version: '1.0.0',
      description:
        'List, add and fetch animals. Every operation needs `Authorization: Bearer <API_KEY>` and is rate limited per plan. A method a path does not list answers 405 with `Allow` (`components/responses/MethodNotAllowed`).',
    },
    servers: [server('api.animal-store.example', 'Production'), server('staging.api.animal-store.example', 'Staging')],
    security: [{ bearerAuth: [] }],
    paths: paths(),
    components: {
      schemas: componentSchemas(),
      responses: componentResponses(),
      parameters: componentParameters(),
      headers: componentHeaders(),
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An API key issued by the operator.' },
      },
    },
  };
}
