import { mapPrefix } from '../http/map-prefix.js';
import { readJsonFile } from '../sources/read-json-file.js';
import { z } from 'zod';
import type { Operation } from './operation.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const instant = z.iso.datetime({ offset: true }).transform((value) => new Date(value));

const OperationObject = z.looseObject({
  // Optional in OpenAPI: without one, the operation is named by its method and path.
  operationId: z.string().min(1).optional(),
  description: z.string().optional(),
  deprecated: z.boolean().optional(),
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
  'x-deprecated-at': instant.optional(),
  'x-sunset': instant.optional(),
  'x-successor-version': z.string().startsWith('/').optional(),
});

const Document = z.looseObject({
  openapi: z.string().regex(/^3\.[01]\.\d+$/, { error: 'must be an OpenAPI 3.0 or 3.1 document' }),
  // Optional in OpenAPI; none means the one server "/".
  servers: z.array(z.looseObject({ url: z.string(), variables: z.record(z.string(), z.looseObject({ default: z.string() })).optional() })).optional(),
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
  paths: z.record(z.string().regex(/^\/[^?#]*$/), z.looseObject(Object.fromEntries(METHODS.map((m) => [m, OperationObject.optional()])))),
});

/**
 * The operations of an OpenAPI document, with a base path in front of each path: `basePath` when
 * given (PUBLIC_BASE_PATH), else the path of the document's first server (`/v1`), else none. An
 * `x-successor-version` under the document's base path moves with it (`/v1/pets` → `/api/pets/pets`).
 * Throws with every problem listed when the document is not usable.
 */
export function loadOperations(file: string, options: { readonly basePath?: string | undefined } = {}): Operation[] {
  const doc = readJsonFile(file, Document, 'OPENAPI_FILE', 'is not a usable OpenAPI document');
  const server = doc.servers?.[0];
  const documentBase = server === undefined ? '' : serverBasePath(server);
  const base = options.basePath ?? documentBase;
  const basePath = base === '/' ? '' : base;
  // A successor names a path of this document, written under its own base path; others stay.
  const successor = (path: string | undefined) => (path === undefined ? undefined : (mapPrefix(path, documentBase, basePath) ?? path));
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as z.infer<typeof OperationObject> | undefined;
      if (op === undefined) continue;
      const template = `${basePath}${path}`;
      const security = op.security ?? doc.security ?? [];
      operations.push({
        operationId: op.operationId ?? `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        template,
        basePath,
        segments: template
          .split('/')
          .slice(1)
          .map((segment) => (/^\{[^}]+\}$/.test(segment) ? null : segment)),
        // `security: [{}]` (an empty requirement) makes a credential optional.
        requiresAuth: security.length > 0 && security.every((requirement) => Object.keys(requirement).length > 0),
        deprecation: op.deprecated
          ? { deprecatedAt: op['x-deprecated-at'], sunset: op['x-sunset'], successor: successor(op['x-successor-version']), note: op.description }
          : undefined,
      });
    }
  }
  return operations;
}

/** The path of a server URL with its variables at their defaults: `https://{host}/v1` → `/v1`. */
export function serverBasePath(server: { url: string; variables?: Record<string, { default: string }> | undefined }): string {
  const url = server.url.replace(/\{([^}]+)\}/g, (_, name: string) => server.variables?.[name]?.default ?? name);
  const path = new URL(url, 'http://relative.invalid').pathname.replace(/\/+$/, '');
  return path;
}
