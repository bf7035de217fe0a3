import type { z } from 'zod';
import { deepFreeze } from './deep-freeze.js';

/** An environment, as `process.env` holds it. */
export type Env = Readonly<Record<string, string | undefined>>;

/** What `parseEnv` gives: the deep-frozen value, or every problem, one line each. */
export type EnvResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problems: string[] };

/**
 * Parses a process's environment with its schema, once, at start. An empty variable means unset,
 * as with `VAR= command`, so its default applies. On failure, every problem is listed, one line
 * each (`NAME: message`), for the caller to print before exiting; on success, the value is
 * deep-frozen, so that nothing downstream can change the configuration it was handed.
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: Env): EnvResult<z.output<S>> {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = schema.safeParse(present);
  return parsed.success ? { ok: true, value: deepFreeze(parsed.data) } : { ok: false, problems: problemLines(parsed.error) };
}

/** A zod error as one line per problem, `path: message`, the path naming the variable or field. */
export function problemLines(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}
