import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryDir } from '@animal-store/testkit';

/** An OpenAPI document with arbitrary operations under `/v1`, written to a temp file. */
export function writeDocument(paths: Record<string, Record<string, Record<string, unknown>>>): string {
  const file = join(temporaryDir('gw-doc-'), 'openapi.json');
  const doc = {
    openapi: '3.1.0',
    info: { title: 'test', version: '1' },
    servers: [{ url: 'https://{host}/v1', variables: { host: { default: 'example.test' } } }],
    security: [{ bearerAuth: [] }],
    paths,
  };
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** Operations on `/echo`, `/hold`, `/reset`, `/hop`, for proxy tests against a recording upstream. */
export const PROXY_TEST_PATHS = {
  '/echo': {
    get: { operationId: 'echoGet' },
    post: { operationId: 'echoPost' },
    delete: { operationId: 'echoDelete' },
    options: { operationId: 'echoOptions' },
  },
  '/hold': { get: { operationId: 'hold' } },
  '/reset': { get: { operationId: 'reset' } },
  '/weird': { get: { operationId: 'weird' } },
  '/switch': { get: { operationId: 'switch' } },
  '/hop': { get: { operationId: 'hop' } },
  '/big': { get: { operationId: 'big' } },
  '/stall': { get: { operationId: 'stall' } },
  '/drip': { get: { operationId: 'drip' } },
};
