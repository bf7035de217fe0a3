import { MAX_JSON_SAFE_INTEGER } from '../schemas/pet.js';

const PREFIX = 'after:';

/**
 * Page cursors are opaque to clients: base64url of `after:<id>`, the last id of the page before.
 * Keyset on the id, so a walk sees every pet once even while pets are created.
 */
export function encodeCursor(afterId: number): string {
  return Buffer.from(`${PREFIX}${afterId}`, 'utf8').toString('base64url');
}

/** The id a cursor points after, or `undefined` for anything this service did not issue. */
export function decodeCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^after:([1-9]\d{0,15})$/.exec(text);
  if (match === null) return undefined;
  const id = Number(match[1]);
  // Only the canonical spelling is accepted, so one position has exactly one cursor.
  if (id > MAX_JSON_SAFE_INTEGER || encodeCursor(id) !== cursor) return undefined;
  return id;
}
