import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPOSITORY_ROOT, serviceCommand } from './service-command.js';
import { temporaryDir } from './temporary-dir.js';

// The build itself is not run here: test/built-services.test.ts runs it, and two builds at once
// (test files run in parallel) would write the same dist/ files while the other's services read them.

test('this checkout runs each service as it ships: built first, then its npm start in its folder', () => {
  for (const kind of ['core', 'gateway'] as const) {
    const builds: string[] = [];
    const { command, cwd } = serviceCommand(REPOSITORY_ROOT, kind, (root) => builds.push(root));
    assert.deepEqual(builds, [REPOSITORY_ROOT]);
    assert.equal(cwd, join(REPOSITORY_ROOT, 'packages', kind));
    assert.deepEqual(command, [process.execPath, '--conditions=@animal-store/built', 'dist/main.js']);
  }
});

test('a checkout from before the build step runs its sources through tsx, as the bench always started it', () => {
  const root = temporaryDir('old-checkout-');
  mkdirSync(join(root, 'packages/gateway'), { recursive: true });
  writeFileSync(join(root, 'packages/gateway/package.json'), JSON.stringify({ scripts: { start: 'tsx src/main.ts' } }));
  const builds: string[] = [];
  assert.deepEqual(
    serviceCommand(root, 'gateway', (built) => builds.push(built)),
    {
      command: [process.execPath, '--import', 'tsx', join(root, 'packages/gateway/src/main.ts')],
      cwd: root,
    },
  );
  assert.deepEqual(builds, [], 'nothing to build');
});
