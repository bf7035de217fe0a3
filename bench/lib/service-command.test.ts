import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryDir } from '@animal-store/testkit';
import { serviceCommand } from './service-command.js';
import { REPOSITORY_ROOT } from './services.js';

test('this checkout runs each service as it ships: its npm start, on the JavaScript built for it', () => {
  for (const kind of ['core', 'gateway'] as const) {
    const { command, cwd } = serviceCommand(REPOSITORY_ROOT, kind);
    assert.equal(cwd, join(REPOSITORY_ROOT, 'packages', kind));
    assert.deepEqual(command, [process.execPath, '--conditions=@animal-store/built', 'dist/main.js']);
    assert.ok(existsSync(join(cwd, 'dist/main.js')), 'built before it is started');
  }
});

test('a checkout from before the build step runs its sources through tsx, as the bench always started it', () => {
  // No root package.json and no build script: a build attempted here would throw.
  const root = temporaryDir('bench-old-checkout-');
  mkdirSync(join(root, 'packages/gateway'), { recursive: true });
  writeFileSync(join(root, 'packages/gateway/package.json'), JSON.stringify({ scripts: { start: 'tsx src/main.ts' } }));
  assert.deepEqual(serviceCommand(root, 'gateway'), {
    command: [process.execPath, '--import', 'tsx', join(root, 'packages/gateway/src/main.ts')],
    cwd: root,
  });
});
