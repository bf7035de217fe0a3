import { fileURLToPath } from 'node:url';

/** The checked-in document: `packages/core/openapi.json`. The gateway reads it by default. */
export const OPENAPI_FILE = fileURLToPath(new URL('../../openapi.json', import.meta.url));

/** The exact bytes of the checked-in file, so a drift test can compare strings. */
export function serializeDocument(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
