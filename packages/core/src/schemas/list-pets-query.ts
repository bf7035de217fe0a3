import { z } from 'zod';
import { PetStatus } from './pet.js';

export const LIST_LIMIT_DEFAULT = 20;
export const LIST_LIMIT_MAX = 100;

/**
 * The query of listPets, as the strings a URL carries. Only these parameters are accepted, each at
 * most once; the route rejects anything else before this schema sees it.
 */
export const ListPetsQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,3}$/, { error: 'must be an integer from 1 to 100' })
    .transform(Number)
    .pipe(z.int().min(1, { error: 'must be at least 1' }).max(LIST_LIMIT_MAX, { error: 'must be at most 100' }))
    .default(LIST_LIMIT_DEFAULT),
  status: PetStatus.optional(),
  cursor: z.string().optional(),
});
export type ListPetsQuery = z.infer<typeof ListPetsQuery>;
