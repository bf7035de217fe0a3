import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/**
 * A fresh directory under the system's temp dir, removed when this process exits. The test
 * runner gives each test file a process of its own, so a file's temp files go with it whether its
 * tests pass, fail or throw.
 */
export function temporaryDir(prefix: string): string {
  if (made.length === 0) {
    process.once('exit', () => {
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
    });
  }
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
