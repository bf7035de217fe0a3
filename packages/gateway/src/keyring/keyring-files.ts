import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
export function writeJson(file: string, value: unknown, mode = 0o644): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode });
  renameSync(temporary, file);
}

export function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}
