import { readFileSync } from 'node:fs';
import { problemLines } from '@animal-store/http-kit';
import type { z } from 'zod';

/**
 * Reads a JSON file the gateway is configured with and validates it with `schema`. Throws an
 * Error that names the setting (`PLANS_FILE …`), and lists every problem when the file parses
 * but does not validate (`… ${invalid}:` then one problem a line).
 */
export function readJsonFile<T extends z.ZodType>(file: string, schema: T, setting: string, invalid: string): z.infer<T> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`${setting} ${file}: ${(error as Error).message}`);
  }
  return parseJsonText(text, file, schema, setting, invalid);
}

/** `readJsonFile` on a file's content already read. */
export function parseJsonText<T extends z.ZodType>(text: string, file: string, schema: T, setting: string, invalid: string): z.infer<T> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${setting} ${file}: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new Error(`${setting} ${file} ${invalid}:\n  - ${problemLines(parsed.error).join('\n  - ')}`);
  }
  return parsed.data;
}
