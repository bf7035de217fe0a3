import { isCanonicalPath } from './canonical-path.js';
import type { Operation } from './operation.js';

export type RouteMatch =
  | { readonly kind: 'operation'; readonly operation: Operation; readonly params: readonly string[]; readonly allow: string }
  /** A path of operations, none with this method: `template` is theirs (for the route label). */
  | { readonly kind: 'method_not_allowed'; readonly allow: string; readonly template: string }
  | { readonly kind: 'not_found' };

interface PathEntry {
  readonly template: string;
  readonly segments: readonly (string | null)[];
  readonly byMethod: ReadonlyMap<string, Operation>;
  readonly allow: string;
}

/**
 * Matches method and raw path against the operations. Literal segments compare exactly
 * (case-sensitive); a parameter takes one whole segment. Paths that are not canonical match nothing.
 * HEAD matches the GET operation of a path (RFC 9110 §9.3.2: GET without the body), and is
 * forwarded as HEAD.
 */
export function createRouteTable(operations: readonly Operation[]): (method: string, path: string) => RouteMatch {
  const byTemplate = new Map<string, Operation[]>();
  for (const operation of operations) {
    const list = byTemplate.get(operation.template) ?? [];
    list.push(operation);
    byTemplate.set(operation.template, list);
  }
  // Templates with more literal segments win (`/pets/mine` before `/pets/{petId}`).
  const entries: PathEntry[] = [...byTemplate.values()]
    .map((ops) => {
      const byMethod = new Map(ops.map((op) => [op.method, op]));
      const get = byMethod.get('GET');
      if (get !== undefined && !byMethod.has('HEAD')) byMethod.set('HEAD', get);
      const first = ops[0] as Operation;
      return { template: first.template, segments: first.segments, byMethod, allow: [...byMethod.keys()].join(', ') };
    })
    .sort((a, b) => literalCount(b.segments) - literalCount(a.segments));

  // Paths without parameters, answered from a map: no template can beat an exact one (it has the
  // most literal segments a path of its length can have). Their matches are made once.
  const exact = new Map<string, { readonly byMethod: ReadonlyMap<string, RouteMatch>; readonly otherwise: RouteMatch }>();
  for (const entry of entries) {
    const path = `/${entry.segments.join('/')}`;
    if (entry.segments.includes(null) || exact.has(path) || !isCanonicalPath(path)) continue;
    const byMethod = new Map(
      [...entry.byMethod].map(([method, operation]) => [method, Object.freeze({ kind: 'operation', operation, params: [], allow: entry.allow } as const)]),
    );
    exact.set(path, { byMethod, otherwise: Object.freeze({ kind: 'method_not_allowed', allow: entry.allow, template: entry.template }) });
  }

  return function matchRoute(method, path) {
    const known = exact.get(path);
    if (known !== undefined) return known.byMethod.get(method) ?? known.otherwise;
    if (!isCanonicalPath(path)) return NOT_FOUND;
    const parts = path.split('/').slice(1);
    for (const entry of entries) {
      const params = matchSegments(entry.segments, parts);
      if (params === undefined) continue;
      const operation = entry.byMethod.get(method);
      if (operation === undefined) return { kind: 'method_not_allowed', allow: entry.allow, template: entry.template };
      return { kind: 'operation', operation, params, allow: entry.allow };
    }
    return NOT_FOUND;
  };
}

const NOT_FOUND: RouteMatch = Object.freeze({ kind: 'not_found' });

function literalCount(segments: readonly (string | null)[]): number {
  return segments.filter((segment) => segment !== null).length;
}

function matchSegments(template: readonly (string | null)[], parts: readonly string[]): string[] | undefined {
  if (template.length !== parts.length) return undefined;
  const params: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const expected = template[i];
    const actual = parts[i] as string;
    if (expected === null) {
      if (actual === '') return undefined;
      params.push(actual);
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}
