import { existsSync, readFileSync } from 'node:fs';
import { writeJsonFile } from '../sources/write-json-file.js';

/**
 * A deny-list file, as the keys CLI and the admin API write it and the gateway reads it
 * (`REVOCATIONS_FILE`, the keyring's `public/revoked.json`): `{"revoked": {"<jti>": "<ISO date>"}}`.
 * The date is when the key is refused from: the moment of a revocation, or the end of a reroll's
 * grace period (`keys reroll --grace`), later. Other fields are kept as they are.
 */
export interface RevocationFile {
  readonly revoked: Record<string, string>;
}

/** The content of a deny-list file, or why it is none (a message naming the file). */
function parse(file: string, text: string): RevocationFile & Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message})`);
  }
  const revoked = (parsed as { revoked?: unknown } | null)?.revoked;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || typeof revoked !== 'object' || revoked === null || Array.isArray(revoked)) {
    throw new Error(`${file} is not a deny-list: expected {"revoked": {"<jti>": "<date>"}}`);
  }
  return parsed as RevocationFile & Record<string, unknown>;
}

/**
 * Each key id of a deny-list file with the time it is refused from (ms since the epoch). A date
 * that does not parse refuses its key from the start of time: an unreadable date never lets a key
 * through. Throws when the file cannot be read or is not a deny-list.
 */
export function readDenyList(file: string): Map<string, number> {
  const { revoked } = parse(file, readFileSync(file, 'utf8'));
  const entries = new Map<string, number>();
  for (const [jti, date] of Object.entries(revoked)) {
    const from = typeof date === 'string' ? Date.parse(date) : Number.NaN;
    entries.set(jti, Number.isNaN(from) ? 0 : from);
  }
  return entries;
}

/**
 * Adds `jti` to the deny-list in `file`, refused from `from` (ms), written whole through a rename.
 * A key already in it keeps its date, unless `from` is earlier: a revocation now cuts a grace
 * period short, a later one never extends it. A missing file is created. Returns the date in
 * force and whether it was there already (then the file is left as it was).
 */
export function addToDenyList(file: string, jti: string, from: number): { readonly refusedFrom: string; readonly already: boolean } {
  const current = existsSync(file) ? parse(file, readFileSync(file, 'utf8')) : { revoked: {} };
  const before = Object.hasOwn(current.revoked, jti) ? current.revoked[jti] : undefined;
  const beforeMs = before === undefined ? Number.NaN : Date.parse(before);
  if (before !== undefined && !(beforeMs > from)) return { refusedFrom: before, already: true };
  const refusedFrom = new Date(from).toISOString();
  writeJsonFile(file, { ...current, revoked: { ...current.revoked, [jti]: refusedFrom } });
  return { refusedFrom, already: false };
}

/** Creates `file` as an empty deny-list when it does not exist (the admin API's own file, `ADMIN_REVOCATIONS_FILE`). */
export function ensureDenyList(file: string): void {
  if (!existsSync(file)) writeJsonFile(file, { revoked: {} } satisfies RevocationFile);
}
