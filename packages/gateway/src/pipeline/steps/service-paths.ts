import { DEPRECATION_NOTES_PATH } from '../../deprecation/index.js';
import type { Answer } from '../answer.js';
import type { Step } from '../exchange.js';

export interface ReadinessCheck {
  readonly name: string;
  ready(): Promise<boolean>;
}

/**
 * What the other workers of this gateway lack, given what this one lacks (`down`): the names of
 * what they do not reach that this one does, each with its worker, so that a dependency every
 * worker lacks is named once (`upstream`), not once more as the other workers'.
 */
export type OthersReadiness = (down: readonly string[]) => Promise<readonly string[]>;

/**
 * The gateway's own paths, answered before anything else and without a key: `/healthz` (alive),
 * `/readyz` (every check answers), and the deprecation notes unless the operator links elsewhere.
 */
export function createServicePaths(checks: readonly ReadinessCheck[], notes: string | undefined, others?: OthersReadiness): Step {
  return function servicePaths(x) {
    if (x.path === '/healthz' || x.path === '/readyz' || x.path === DEPRECATION_NOTES_PATH) x.record.route = x.path;
    if (x.path === '/healthz') return { kind: 'status', status: 200, body: { status: 'ok' } };
    if (x.path === '/readyz') return readiness(checks, others);
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

/** 200 when every check answers and every other worker is ready, 503 naming what is not. */
async function readiness(checks: readonly ReadinessCheck[], others: OthersReadiness | undefined): Promise<Answer> {
  const own = await notReady(checks);
  const down = others === undefined ? own : [...own, ...(await others(own))];
  if (down.length === 0) return { kind: 'status', status: 200, body: { status: 'ready' } };
  return { kind: 'error', code: 'not_ready', message: `Not reachable: ${down.join(', ')}.`, outcome: 'health' };
}
