import { gatewayOperations } from './gateway-operations.js';
import { loadOperations } from './load-operations.js';
import type { Operation } from './operation.js';

/**
 * The operations a gateway routes: the backend document's under the public base path
 * (`PUBLIC_BASE_PATH`, else the document's first server's), and the gateway's own beside them; with
 * that base path (`''` for the root). Throws as `loadOperations` does.
 */
export function apiOperations(
  openApiFile: string,
  publicBasePath: string | undefined,
): { readonly backend: Operation[]; readonly all: Operation[]; readonly basePath: string } {
  const backend = loadOperations(openApiFile, { basePath: publicBasePath });
  const basePath = backend[0]?.basePath ?? (publicBasePath === '/' ? '' : (publicBasePath ?? ''));
  return { backend, all: [...backend, ...gatewayOperations(basePath)], basePath };
}
