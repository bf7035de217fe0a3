#!/usr/bin/env node
// The second half of `npm run build`: tsc compiles each service package's src/*.ts into dist/ and
// copies nothing else, yet the code serves files that sit beside it (the admin console's page,
// script and style). Every other file of src/ goes to the same place under dist/, so the built tree
// serves what the source tree serves (test/built-services.test.ts holds it to that). A file already
// there with the same bytes is left alone, and a changed one is replaced whole (written beside it,
// then renamed): a service reading it meanwhile sees the old file or the new, never half of one.
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

for (const name of ['http-kit', 'core', 'gateway']) {
  const src = join(root, 'packages', name, 'src');
  const dist = join(root, 'packages', name, 'dist');
  const assets = readdirSync(src, { withFileTypes: true, recursive: true }).filter(
    (entry) => entry.isFile() && !entry.name.endsWith('.ts') && !/\.test\.[^.]+$/.test(entry.name),
  );
  for (const entry of assets) {
    const target = join(dist, relative(src, join(entry.parentPath, entry.name)));
    const bytes = readFileSync(join(entry.parentPath, entry.name));
    let current;
    try {
      current = readFileSync(target);
    } catch {
      current = undefined;
    }
    if (current?.equals(bytes)) continue;
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(`${target}.partial`, bytes);
    renameSync(`${target}.partial`, target);
  }
}
