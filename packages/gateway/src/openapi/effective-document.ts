import {
  BEARER_SCHEME,
  DEPRECATION_HEADERS,
  errorContent,
  GATEWAY_RESPONSES,
  HEADERS,
  RATE_LIMIT_HEADERS,
  ref,
  responseHeaders,
  SCHEMAS,
  usageOperation,
  type Json,
} from './gateway-components.js';

/** Paths, under the public base path, that the gateway answers itself. */
export const USAGE_PATH = '/usage';
export const DOCUMENT_PATH = '/openapi.json';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** Schemas the gateway names; a backend document that uses one of the names cannot be extended. */
const OWN_SCHEMAS = ['Problem', 'Usage', 'UsageWindow'] as const;

/** The backend's document declares what the gateway answers itself: the gateway must not start. */
export class DocumentConflictError extends Error {
  override readonly name = 'DocumentConflictError';
}

export interface EffectiveDocumentOptions {
  /** Where the `rel="deprecation"` notes are (`/docs/deprecations`, or DEPRECATION_DOC_URL). */
  readonly deprecationDocUrl: string;
}

/**
 * The API as a client of the gateway sees it: the backend's OpenAPI document plus what the gateway
 * adds. `GET /usage`; the 401, 413, 429, 502, 503 and 504 answers it makes itself (with problem
 * details on request); the rate-limit headers on every answer; `Retry-After` on 429 and 503;
 * `Deprecation`, `Sunset` and `Link` on every answer of a deprecated operation; the bearer scheme.
 * What the backend already declares is kept, never declared twice. Throws `DocumentConflictError`
 * when the backend's document already has a path or schema name the gateway needs.
 */
export function buildEffectiveDocument(backend: Json, options: EffectiveDocumentOptions): Json {
  const doc = structuredClone(backend) as Json & { paths?: Record<string, Json>; components?: Record<string, Record<string, Json>> };
  const paths = (doc.paths ??= {});
  for (const path of [USAGE_PATH, DOCUMENT_PATH]) {
    if (path in paths)
      throw new DocumentConflictError(`the backend's document already has the path ${path}, which the gateway answers itself: remove it or serve it elsewhere`);
  }
  const components = (doc.components ??= {});
  const section = (name: string): Record<string, Json> => (components[name] ??= {});
  for (const name of OWN_SCHEMAS) {
    if (name in section('schemas')) throw new DocumentConflictError(`the backend's document already has components/schemas/${name}, a name the gateway uses`);
  }
  addMissing(section('schemas'), SCHEMAS);
  addMissing(section('headers'), HEADERS);
  addMissing(section('securitySchemes'), { bearerAuth: BEARER_SCHEME });
  const responses = section('responses');
  for (const { name, description, headers, example } of Object.values(GATEWAY_RESPONSES)) {
    const existing = responses[name];
    if (existing === undefined) {
      responses[name] = { description, headers: responseHeaders(headers), content: errorContent(example) };
    } else {
      addHeaders(existing, [...RATE_LIMIT_HEADERS, ...headers]);
      addMissing((existing.content ??= {}) as Json, errorContent(example));
    }
  }

  for (const item of Object.values(paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (operation !== undefined) extendOperation(operation, doc, responses, options);
    }
  }
  paths[USAGE_PATH] = usageOperation();
  doc.info = { ...(doc.info as Json), description: `${String((doc.info as Json | undefined)?.description ?? '').trim()}\n\n${GATEWAY_NOTE}`.trim() };
  return doc;
}

const GATEWAY_NOTE =
  "This is the document the gateway serves: the backend's operations, plus `GET /usage`, the answers the gateway makes itself (401, 413, 429, 502, 503, 504, with `application/problem+json` on request) and the headers it adds to every answer.";

function extendOperation(operation: Json, doc: Json, responses: Record<string, Json>, options: EffectiveDocumentOptions): void {
  const answers = (operation.responses ??= {}) as Record<string, Json>;
  const security = (operation.security ?? doc.security ?? []) as Json[];
  const requiresAuth = security.length > 0 && security.every((requirement) => Object.keys(requirement).length > 0);
  for (const [status, { name }] of Object.entries(GATEWAY_RESPONSES)) {
    if (status === '401' && !requiresAuth) continue;
    answers[status] ??= ref('responses', name);
  }
  const deprecated = operation.deprecated === true;
  if (deprecated && operation.externalDocs === undefined) {
    operation.externalDocs = { description: 'Deprecation and migration notes', url: options.deprecationDocUrl };
  }
  for (const [status, answer] of Object.entries(answers)) {
    const target = resolve(answer, responses);
    if (target === undefined) continue;
    addHeaders(target, RATE_LIMIT_HEADERS);
    if (!deprecated || hasHeaders(target, DEPRECATION_HEADERS)) continue;
    // A shared response also serves operations that are not deprecated: this one gets a copy.
    const copy = structuredClone(target);
    addHeaders(copy, DEPRECATION_HEADERS);
    answers[status] = copy;
  }
}

/** A response object, following one `$ref` into `components/responses`. */
function resolve(answer: Json, responses: Record<string, Json>): Json | undefined {
  const pointer = answer.$ref;
  if (typeof pointer !== 'string') return answer;
  const match = /^#\/components\/responses\/([^/]+)$/.exec(pointer);
  return match === null ? undefined : responses[match[1] as string];
}

function hasHeaders(response: Json, names: readonly string[]): boolean {
  const present = new Set(Object.keys((response.headers ?? {}) as Json).map((name) => name.toLowerCase()));
  return names.every((name) => present.has(name.toLowerCase()));
}

/** Adds references to the header components `names` that `response` does not declare (in any case). */
function addHeaders(response: Json, names: readonly string[]): void {
  const headers = (response.headers ??= {}) as Json;
  const present = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  for (const name of names) if (!present.has(name.toLowerCase())) headers[name] = ref('headers', name);
}

function addMissing(target: Record<string, unknown>, entries: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(entries)) if (!(name in target)) target[name] = structuredClone(value);
}
