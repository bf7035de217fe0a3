#!/usr/bin/env node
// `npm test`: every *.test.ts of every package on the node:test runner, through tsx.
// `npm run test:hostile` (`--hostile`): every *.hostile.ts instead, one file at a time (the
// hostile-traffic suite: long, load-generating, measured on the gateway's processes).
// Node 20 has no test-file globs for .ts, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', 'results']);

const args = process.argv.slice(2);
const hostile = args.includes('--hostile');
const SUFFIX = hostile ? '.hostile.ts' : '.test.ts';

function findTests(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIP.has(entry.name) ? [] : findTests(path);
    return entry.name.endsWith(SUFFIX) ? [path] : [];
  });
}

// Narrow with arguments: `npm test -- packages/core` runs only the files under those paths.
const filters = args.filter((arg) => arg !== '--hostile');
const files = ['packages', 'bench', 'test']
  .flatMap((dir) => findTests(join(root, dir)))
  .map((file) => relative(root, file))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.startsWith(filter)))
  .sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// The hostile files load the machine on purpose: never two at once.
const concurrency = hostile ? ['--test-concurrency=1'] : [];
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...concurrency, ...files], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
