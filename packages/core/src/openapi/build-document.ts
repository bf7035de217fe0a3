import {
  componentHeaders,
  componentParameters,
  componentResponses,
  componentSchemas,
  DEPRECATION_HEADERS,
  errorResponse,
  ref,
  response,
  SHARED_STATUS,
  type Json,
} from './components.js';

/** The removal date the interface gives for getPet; the gateway turns it into `Sunset`. */
export const GET_PET_SUNSET = '2030-12-05T00:00:00Z';
/** When getPet was marked deprecated (interface 1.0.0 as published here); `Deprecation` header. */
export const GET_PET_DEPRECATED_AT = '2026-11-22T00:00:00Z';
export const GET_PET_SUCCESSOR = '/v1/pets?status=available';

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
          '415': errorResponse('The body is not application/json.', 'unsupported_media_type'),
          '422': errorResponse('The Idempotency-Key was used before with another body.', 'idempotency_key_reused'),
          ...errorsOf('TooManyRequests'),
          ...inFront(),
        },
      },
    },
    '/pets/{petId}': {
      get: {
        operationId: 'getPet',
        summary: 'Fetch one animal by id',
        // With the base path: a path relative to the server read as a lie where `/pets` is no operation.
        description:
          'Deprecated: removed on 5 December 2030. Use `listPets` with the `status` filter: `GET /v1/pets?status=…` under the default base path `/v1`.',
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
          '501': errorResponse('Not available in this version.', 'not_implemented'),
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
