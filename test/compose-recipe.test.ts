import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseDocument } from 'yaml';
import { parseBlocks } from './docs-examples.js';

// Issue 39, point 3.3: the README's compose recipe could not start the stack as written: it left
// out making the `admin-tokens` file the compose file requires (docs/compose.md had the lines).
// The recipe is read as written, without Docker: scripts/compose-smoke.sh runs the stack itself.

const read = (file: string) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');

/** The `sh` block of `file` that starts the compose stack: its commands, comments and spacing taken off. */
function recipe(file: string): string[] {
  const block = parseBlocks(file, read(file)).find(
    (candidate) => candidate.lang === 'sh' && candidate.lines.some((line) => /docker compose .* up /.test(line)),
  );
  assert.ok(block, `${file} has a compose recipe`);
  return block.lines
    .map((line) =>
      line
        .replace(/\s+#.*$/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((line) => line !== '');
}

const README = recipe('README.md');
const UP = README.findIndex((line) => /^docker compose .* up /.test(line));

test("the README's compose recipe makes every file the compose file requires, before it starts the stack", () => {
  const compose = parseDocument(read('docker-compose.yml')).toJS() as { secrets?: Record<string, { file: string }> };
  for (const [name, { file }] of Object.entries(compose.secrets ?? {})) {
    // `${VARIABLE:-./default}`: the file the recipe, which sets no variable, must make.
    const path = (/^\$\{\w+:-(.+)\}$/.exec(file)?.[1] ?? file).replace(/^\.\//, '');
    const made = README.findIndex((line) => line.includes(`> ${path}`));
    assert.ok(made !== -1 && made < UP, `secret ${name}: the recipe makes ${path} before "docker compose up"`);
  }
  const keysInit = README.findIndex((line) => line.startsWith('npm run keys -- init'));
  assert.ok(keysInit !== -1 && keysInit < UP, 'the recipe makes the keyring the gateway mounts before "docker compose up"');
});

test("the README's compose recipe has every step of docs/compose.md's, in the same order", () => {
  const steps = recipe('docs/compose.md').filter((line) => line !== 'npm ci');
  let at = -1;
  for (const step of steps) {
    const found = README.indexOf(step, at + 1);
    assert.ok(found > at, `README.md's recipe has, after the steps before it: ${step}\n${README.join('\n')}`);
    at = found;
  }
});
