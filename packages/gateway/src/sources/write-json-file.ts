import { renameSync, writeFileSync } from 'node:fs';

/**
 * Writes `value` as JSON through a temporary file and a rename, so that a reader (a gateway
 * watching the file, another process) never sees half a file. The temporary file is named after
 * the writing process: the keys CLI and a gateway's admin API may write the same deny-list.
 */
export function writeJsonFile(file: string, value: unknown, mode = 0o644): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode });
  renameSync(temporary, file);
}
