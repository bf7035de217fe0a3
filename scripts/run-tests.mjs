#!/usr/bin/env node
// `npm test`: every *.test.ts of every package on the node:test runner, through tsx.
// Node 20 has no test-file globs for .ts, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', 'results']);

function findTests(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIP.has(entry.name) ? [] : findTests(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

// Narrow with arguments: `npm test -- packages/core` runs only the files under those paths.
const filters = process.argv.slice(2);
const files = ['packages', 'bench', 'test'].flatMap((dir) => findTests(join(root, dir)))
  .map((file) => relative(root, file))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.startsWith(filter)))
  .sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
