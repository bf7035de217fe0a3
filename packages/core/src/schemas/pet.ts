import { z } from 'zod';

/** The largest integer JSON carries without loss; ids and category ids stay within it. */
export const MAX_JSON_SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

export const PET_NAME_MAX_LENGTH = 100;

const int64 = (description: string) => z.int().min(1).max(MAX_JSON_SAFE_INTEGER).meta({ format: 'int64', description });

export const PetStatus = z.enum(['available', 'pending', 'sold']).meta({
  id: 'PetStatus',
  description: "The animal's availability.",
  examples: ['available'],
});
export type PetStatus = z.infer<typeof PetStatus>;

const name = z
  .string()
  .min(1)
  .max(PET_NAME_MAX_LENGTH)
  .regex(/\S/, { error: 'must not be blank' })
  .meta({ description: "The animal's name.", examples: ['Rex'] });

export const NewPet = z
  .strictObject({
    name,
    categoryId: int64('ID of the category the animal belongs to.'),
    status: PetStatus.optional(),
  })
  .meta({ id: 'NewPet', description: 'The request shape for creating an animal.', examples: [{ name: 'Rex', categoryId: 1, status: 'available' }] });
export type NewPet = z.infer<typeof NewPet>;

export const Pet = z
  .strictObject({
    id: int64('Unique identifier assigned by the service on creation.'),
    name,
    categoryId: int64('ID of the category the animal belongs to.'),
    status: PetStatus.optional(),
  })
  .meta({ id: 'Pet', description: 'An animal: a NewPet plus its id.', examples: [{ id: 42, name: 'Rex', categoryId: 1, status: 'available' }] });
export type Pet = z.infer<typeof Pet>;

export const Pets = z.array(Pet).meta({
  id: 'Pets',
  description: 'A page of animals.',
  examples: [
    [
      { id: 42, name: 'Rex', categoryId: 1, status: 'available' },
      { id: 43, name: 'Tom', categoryId: 2, status: 'pending' },
    ],
  ],
});

export const ErrorSchema = z
  .strictObject({
    code: z.string().meta({ description: 'Machine-readable error code (snake_case).' }),
    message: z.string().meta({ description: 'Human-readable description.' }),
    status: z.int().min(100).max(599).meta({ description: 'The HTTP status code.' }),
  })
  .meta({
    id: 'Error',
    description: 'The body of every error response.',
    examples: [{ code: 'pet_not_found', message: 'No pet with this id.', status: 404 }],
  });
