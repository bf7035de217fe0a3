import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../errors.js';
import { readJsonBody } from '../http/read-json-body.js';
import { NewPet } from '../schemas/pet.js';
import type { IdempotencyToken, PetStore } from '../store/index.js';
import { describeIssues, type RouteHandler } from './route.js';

/** The account the gateway names; requests without it (direct calls) share one scope. */
const SUBJECT_HEADER = 'x-api-subject';

/**
 * createPet: validates a NewPet strictly and stores it. With `Idempotency-Key`, a retry with the
 * same key and body gets the first answer again (`Idempotent-Replayed: true`) and creates nothing;
 * the same key with another body is refused with 422.
 */
export function createCreatePet(store: PetStore, bodyLimitBytes: number): RouteHandler {
  return async function createPet({ req }) {
    const key = idempotencyKey(req);
    const parsed = NewPet.safeParse(await readJsonBody(req, bodyLimitBytes));
    if (!parsed.success) throw new HttpError('invalid_body', describeIssues(parsed.error));
    const pet = parsed.data;

    let token: IdempotencyToken | undefined;
    if (key !== undefined) {
      const fingerprint = createHash('sha256')
        .update(JSON.stringify([pet.name, pet.categoryId, pet.status ?? null]))
        .digest('base64url');
      token = { scope: req.headers[SUBJECT_HEADER]?.toString() ?? '', key, fingerprint };
    }

    const result = await store.create(pet, token);
    if (result.kind === 'key_reused') throw new HttpError('idempotency_key_reused');
    const headers: Record<string, string> = { location: `/v1/pets/${result.pet.id}` };
    if (result.kind === 'replayed') headers['idempotent-replayed'] = 'true';
    return { status: 201, body: result.pet, headers };
  };
}

function idempotencyKey(req: IncomingMessage): string | undefined {
  const value = req.headers['idempotency-key'];
  if (value === undefined) return undefined;
  // Node joins repeated headers with ", ", which the pattern refuses: one key per request.
  if (typeof value !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(value)) {
    throw new HttpError('invalid_idempotency_key');
  }
  return value;
}
