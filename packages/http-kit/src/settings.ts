import type { z } from 'zod';

/** One setting: the environment variable it is read from, and its schema (type, default, check). */
export type Setting = readonly [variable: string, schema: z.ZodType];

/** Settings by the config field each fills: `timeoutMs: ['UPSTREAM_TIMEOUT_MS', ms.default(10_000)]`. */
export type SettingsTable = { readonly [field: string]: Setting };

/** A table's variables with their schemas: a shape to spread into a `z.object`. */
export type SettingsShape<T extends SettingsTable> = { -readonly [F in keyof T as T[F][0]]: T[F][1] };

/** A table's fields with their parsed values, typed by their schemas' output. */
export type SettingsValues<T extends SettingsTable> = { readonly [F in keyof T]: z.output<T[F][1]> };

/** A table of settings, for a process's env schema (`shape`) and for its config (`read`). */
export interface Settings<T extends SettingsTable> {
  /** The variables and their schemas, keyed by variable, so that problems name the variable. */
  readonly shape: SettingsShape<T>;
  /** The table's fields out of the parsed environment (the output of a schema holding `shape`). */
  read(env: Readonly<Record<string, unknown>>): SettingsValues<T>;
}

/**
 * Declares settings once, one line each: the config field, the variable, the schema. The field's
 * type follows from the schema, so adding a setting to a table is that one line.
 */
export function settings<const T extends SettingsTable>(table: T): Settings<T> {
  const entries = Object.entries(table);
  return {
    shape: Object.fromEntries(entries.map(([, [variable, schema]]) => [variable, schema])) as SettingsShape<T>,
    read: (env) => Object.fromEntries(entries.map(([field, [variable]]) => [field, env[variable]])) as SettingsValues<T>,
  };
}
