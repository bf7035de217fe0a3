import { createCors, type CorsSettings } from '../../http/cors.js';
import { refuse } from '../answer.js';
import type { Step } from '../exchange.js';

/**
 * CORS: a preflight is answered here (without a key, never reaching the backend); an allowed
 * origin's headers join every answer; a preflight from another origin is refused.
 */
export function createCorsStep(settings: CorsSettings, methodsAt: (path: string) => string | undefined): Step {
  const cors = createCors(settings, methodsAt);
  return function corsStep(x) {
    const verdict = cors(x.method, x.path, x.req.headers);
    if (verdict.kind === 'preflight') return { kind: 'preflight', headers: verdict.headers };
    if (verdict.kind === 'refused') return refuse('origin_not_allowed', `Browsers on ${verdict.origin} may not call this API (CORS_ORIGINS).`);
    if (verdict.kind === 'allowed') Object.assign(x.headers, verdict.headers);
    return undefined;
  };
}
