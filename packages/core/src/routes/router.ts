import type { CoreConfig } from '../config.js';
import { HttpError } from '../errors.js';
import type { PetStore } from '../store/index.js';
import { createCreatePet } from './create-pet.js';
import { createGetPet } from './get-pet.js';
import { createListPets } from './list-pets.js';
import type { RouteHandler } from './route.js';

interface Route {
  /** Matched against the raw path; capture groups are the path parameters. */
  readonly pattern: RegExp;
  readonly methods: Readonly<Record<string, RouteHandler>>;
  readonly allow: string;
}

export interface RouteMatch {
  readonly handler: RouteHandler;
  readonly params: readonly string[];
}

/**
 * Maps method and path to a handler. Paths are compared raw and exactly (no decoding, no
 * normalisation): `/v1/pets/` and `/v1//pets` are simply unknown.
 */
export function createRouter(store: PetStore, config: CoreConfig, openApiJson: string) {
  // HEAD is GET without the body (RFC 9110 §9.3.2): Node leaves the body out of HEAD answers.
  const route = (pattern: RegExp, methods: Record<string, RouteHandler>): Route => {
    const withHead: Record<string, RouteHandler> = methods.GET === undefined ? methods : { ...methods, HEAD: methods.GET };
    return { pattern, methods: withHead, allow: Object.keys(withHead).join(', ') };
  };
  const routes: readonly Route[] = [
    route(/^\/v1\/pets$/, { GET: createListPets(store), POST: createCreatePet(store, config.bodyLimitBytes) }),
    route(/^\/v1\/pets\/([^/]+)$/, { GET: createGetPet(store) }),
    route(/^\/v1\/store\/orders$/, {
      GET: async () => {
        throw new HttpError('not_implemented', 'Store orders are referred to by the interface but not defined in version 1.0.0.');
      },
    }),
    route(/^\/v1\/openapi\.json$/, {
      GET: async () => ({ status: 200, body: JSON.parse(openApiJson) as unknown }),
    }),
  ];

  return function match(method: string, path: string): RouteMatch {
    for (const candidate of routes) {
      const found = candidate.pattern.exec(path);
      if (found === null) continue;
      const handler = candidate.methods[method];
      if (handler === undefined) {
        throw new HttpError('method_not_allowed', `${method} is not allowed here; allowed: ${candidate.allow}.`, {
          allow: candidate.allow,
        });
      }
      return { handler, params: found.slice(1) };
    }
    throw new HttpError('not_found');
  };
}
