#!/usr/bin/env node
// `npm test`: every *.test.ts of every package on the node:test runner, through tsx.
// `npm run test:hostile` (`--hostile`): every *.hostile.ts instead, one file at a time (the
// hostile-traffic suite: long, load-generating, measured on the gateway's processes).
// Node 20 has no test-file globs for .ts, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
// Two files at a time: most of a file's time is spent waiting for the processes it starts, so on
// two cores this takes about two thirds of the time of one at a time (the runner's default there).
// A file that keeps every core busy on purpose (a CPU hog: it says `// npm test: alone` in its
// text) would starve the file beside it, so those run afterwards, one at a time, as do the hostile
// files, which all load the machine.
const ALONE = /^\/\/ npm test: alone\b/m;
const alone = hostile ? files : files.filter((file) => ALONE.test(readFileSync(join(root, file), 'utf8')));
const together = files.filter((file) => !alone.includes(file));

// The tests start the services as they ship, from what `npm run build` compiles: built once here,
// before any file runs, and never by a test file meanwhile (ANIMAL_STORE_BUILT, see the testkit's
// service-command.ts), so no build writes dist/ while another file's services read it.
const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.error('npm run build failed: the tests run the built services');
  process.exit(build.status ?? 1);
}
process.env.ANIMAL_STORE_BUILT = '1';

/** Runs `group` on the node:test runner, at most `concurrency` files at once; its exit status. */
function run(group, concurrency) {
  if (group.length === 0) return 0;
  // --test-force-exit: a file whose test failed half-way (a service that did not start) may leave a
  // server of its own listening; once its tests are over the file ends anyway, its failure reported,
  // instead of holding the whole run until CI's time is up.
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-force-exit', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...group],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  return result.status ?? 1;
}

// Both groups run even when the first fails, so one run reports every failure.
const statuses = [run(together, 2), run(alone, 1)];
process.exit(statuses.find((status) => status !== 0) ?? 0);
