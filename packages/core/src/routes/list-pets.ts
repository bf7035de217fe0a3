import { HttpError } from '../errors.js';
import { decodeCursor, encodeCursor } from '../http/cursor.js';
import { ListPetsQuery } from '../schemas/list-pets-query.js';
import type { PetStore } from '../store/index.js';
import { describeIssues, type RouteHandler } from './route.js';

const KNOWN_PARAMETERS = new Set(Object.keys(ListPetsQuery.shape));

/**
 * listPets: a page of pets in id order. The body is a bare array, as the interface says; the next
 * page is announced in `Link: <...>; rel="next"` with an opaque cursor.
 */
export function createListPets(store: PetStore): RouteHandler {
  return async function listPets({ query }) {
    const raw: Record<string, string> = {};
    for (const [name, value] of new URLSearchParams(query)) {
      if (!KNOWN_PARAMETERS.has(name)) throw new HttpError('invalid_query', `Unknown query parameter "${name}".`);
      if (name in raw) throw new HttpError('invalid_query', `Query parameter "${name}" is given more than once.`);
      raw[name] = value;
    }
    const parsed = ListPetsQuery.safeParse(raw);
    if (!parsed.success) throw new HttpError('invalid_query', describeIssues(parsed.error));
    const { limit, status, cursor } = parsed.data;

    let afterId: number | undefined;
    if (cursor !== undefined) {
      afterId = decodeCursor(cursor);
      if (afterId === undefined) throw new HttpError('invalid_cursor');
    }

    const page = await store.list({ limit, status, afterId });
    const headers: Record<string, string> = {};
    const last = page.pets.at(-1);
    if (page.hasMore && last !== undefined) {
      const next = new URLSearchParams({ limit: String(limit) });
      if (status !== undefined) next.set('status', status);
      next.set('cursor', encodeCursor(last.id));
      headers.link = `</v1/pets?${next.toString()}>; rel="next"`;
    }
    return { status: 200, body: page.pets, headers };
  };
}
