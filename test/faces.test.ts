// Nothing outside a package reaches into its src/ or test/ by a relative path: the bench, the
// scripts, the repository tests and the other packages import what a package exports
// (docs/development.md#faces-and-test-support). Issue 39 found bench/limits-ipc.ts doing it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', 'results', 'generated']);

/** Every TypeScript or JavaScript module under `dir`. */
function modulesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIP.has(entry.name) ? [] : modulesUnder(path);
    return /\.(?:ts|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

/** The package folder (packages/<name>) a path is in, if any. */
function packageOf(path: string): string | undefined {
  const parts = relative(root, path).split(sep);
  return parts[0] === 'packages' && parts[1] !== undefined ? join('packages', parts[1]) : undefined;
}

test('no module imports another package, or the repository imports a package, by a relative path', () => {
  const offenders: string[] = [];
  for (const file of modulesUnder(root)) {
    const from = packageOf(file);
    for (const match of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = resolve(file, '..', match[1] as string);
      const into = packageOf(target);
      if (into !== undefined && into !== from) offenders.push(`${relative(root, file)} imports ${match[1]}`);
    }
  }
  assert.deepEqual(offenders, []);
});
