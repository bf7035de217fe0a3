import { DEPRECATION_NOTES_PATH } from '../../deprecation/index.js';
import type { Answer } from '../answer.js';
import type { Step } from '../exchange.js';

export interface ReadinessCheck {
  readonly name: string;
  ready(): Promise<boolean>;
}

/**
 * The gateway's own paths, answered before anything else and without a key: `/healthz` (alive),
 * `/readyz` (every check answers), and the deprecation notes unless the operator links elsewhere.
 */
export function createServicePaths(checks: readonly ReadinessCheck[], notes: string | undefined): Step {
  return function servicePaths(x) {
    if (x.path === '/healthz' || x.path === '/readyz' || x.path === DEPRECATION_NOTES_PATH) x.record.route = x.path;
    if (x.path === '/healthz') return { kind: 'status', status: 200, body: { status: 'ok' } };
    if (x.path === '/readyz') return readiness(checks);
    if (notes !== undefined && x.path === DEPRECATION_NOTES_PATH && (x.method === 'GET' || x.method === 'HEAD')) {
      return { kind: 'document', contentType: 'text/markdown; charset=utf-8', text: notes };
    }
    return undefined;
  };
}

/** The names of the checks that do not answer (all are asked at once); empty when every one does. */
export async function notReady(checks: readonly ReadinessCheck[]): Promise<string[]> {
  const results = await Promise.all(checks.map(async (check) => [check.name, await check.ready()] as const));
  return results.filter(([, ok]) => !ok).map(([name]) => name);
}

/** 200 when every check answers, 503 naming those that do not. */
async function readiness(checks: readonly ReadinessCheck[]): Promise<Answer> {
  const down = await notReady(checks);
  if (down.length === 0) return { kind: 'status', status: 200, body: { status: 'ready' } };
  return { kind: 'error', code: 'not_ready', message: `Not reachable: ${down.join(', ')}.`, outcome: 'health' };
}
