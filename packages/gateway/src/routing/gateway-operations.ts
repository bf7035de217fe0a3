import type { Operation } from './operation.js';

/** The operationId of `GET {base}/usage` (the effective document names it the same). */
export const USAGE_OPERATION_ID = 'getUsage';

/**
 * The operations the gateway answers itself, routed like the backend's: `GET {basePath}/usage`,
 * which needs a key. Its path must not be in the backend's document (`buildEffectiveDocument`
 * refuses such a document).
 */
export function gatewayOperations(basePath: string): Operation[] {
  const template = `${basePath}/usage`;
  return [
    {
      operationId: USAGE_OPERATION_ID,
      method: 'GET',
      template,
      basePath,
      segments: template.split('/').slice(1),
      requiresAuth: true,
      deprecation: undefined,
      answeredBy: 'gateway',
    },
  ];
}
