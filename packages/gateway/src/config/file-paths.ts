import { resolve } from 'node:path';
import { settings } from '@animal-store/http-kit';
import { z } from 'zod';

/** Resolves a configured file path; `undefined` stays `undefined`. */
export type ResolveFile = <T extends string | undefined>(path: T) => T;

/** Set by npm to the directory `npm run …` was typed in: relative file paths are taken from there. */
export const PATHS = settings({
  initCwd: ['INIT_CWD', z.string().min(1).optional()],
});

/**
 * Relative paths are the operator's: taken from where `npm run` was typed (INIT_CWD), else the
 * working directory, never from wherever a workspace script happens to run.
 */
export function fileResolver(env: Readonly<Record<string, unknown>>): ResolveFile {
  const base = PATHS.read(env).initCwd ?? process.cwd();
  return (path) => (path === undefined ? path : (resolve(base, path) as typeof path));
}
