import { HttpError } from '../errors.js';
import { MAX_JSON_SAFE_INTEGER } from '../schemas/pet.js';
import type { PetStore } from '../store/index.js';
import type { RouteHandler } from './route.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * getPet (deprecated in the interface; the gateway adds the deprecation headers). An id that is not
 * an int64 is a 400; an int64 that no pet has, including ones no pet can ever have, is a 404.
 */
export function createGetPet(store: PetStore): RouteHandler {
  return async function getPet({ params }) {
    const raw = params[0] ?? '';
    if (!/^-?\d{1,20}$/.test(raw)) throw new HttpError('invalid_pet_id');
    const id = BigInt(raw);
    if (id < INT64_MIN || id > INT64_MAX) throw new HttpError('invalid_pet_id');
    if (id < 1n || id > BigInt(MAX_JSON_SAFE_INTEGER)) throw new HttpError('pet_not_found');
    const pet = await store.get(Number(id));
    if (pet === undefined) throw new HttpError('pet_not_found');
    return { status: 200, body: pet };
  };
}
