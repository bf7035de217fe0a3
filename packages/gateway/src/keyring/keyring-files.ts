import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';

export class KeyringError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyringError';
  }
}

/** Where each file of the keyring in `dir` lives (the layout is described in `keyring.ts`). */
export const keyringPaths = (dir: string) => ({
  publicDir: join(dir, 'public'),
  jwks: join(dir, 'public', 'jwks.json'),
  revoked: join(dir, 'public', 'revoked.json'),
  privateDir: join(dir, 'private'),
  privateKey: (kid: string) => join(dir, 'private', `${kid}.json`),
  state: join(dir, 'state.json'),
});

/** Keyrings made before `public/` kept its two files at the top: move them in, once. */
export function upgradeLayout(dir: string): void {
  const p = keyringPaths(dir);
  for (const [old, current] of [
    [join(dir, 'jwks.json'), p.jwks],
    [join(dir, 'revoked.json'), p.revoked],
  ] as const) {
    if (!existsSync(old) || existsSync(current)) continue;
    mkdirSync(p.publicDir, { recursive: true, mode: 0o755 });
    renameSync(old, current);
  }
}

/** Writes through a temporary file and a rename, so a reader never sees half a file. */
export { writeJsonFile as writeJson } from '../sources/write-json-file.js';

/**
 * Reads a keyring file as `schema` says it is. Whatever is wrong (unreadable, not JSON, not the
 * shape) is a KeyringError that names the file and the problem: `keys: …/state.json is not valid
 * JSON (…)` tells an operator where to look, `Unterminated string in JSON at position 17` did not.
 */
export function readJson<S extends z.ZodType>(file: string, schema: S, what: string): z.output<S> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new KeyringError(`cannot read ${file} (${what}): ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new KeyringError(`${file} (${what}) is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.length === 0 ? 'the whole file' : issue.path.join('.')}: ${issue.message}`);
    throw new KeyringError(`${file} is not ${what}: ${problems.join('; ')}`);
  }
  return parsed.data;
}
