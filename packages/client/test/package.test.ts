import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { temporaryDir } from '@animal-store/testkit';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));

test('the package builds to plain ESM JavaScript that Node runs without tsx, types beside it', async () => {
  const out = temporaryDir('client-dist-');
  await run(join(packageDir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json', '--outDir', out], { cwd: packageDir });
  const script = `
    const { createClient, ApiError } = await import(${JSON.stringify(pathToFileURL(join(out, 'index.js')).href)});
    const answers = [new Response('{"code":"rate_limited","message":"wait","status":429}', { status: 429, headers: { 'retry-after': '1' } }), Response.json([{ id: 1, name: 'Rex', categoryId: 1 }])];
    const client = createClient({ baseUrl: 'http://api.test/v1', apiKey: 'k', fetch: async () => answers.shift(), sleep: async () => {} });
    const pets = await client.listPets();
    console.log(JSON.stringify({ pets, error: new ApiError({ status: 404, code: 'pet_not_found', message: 'x' }) instanceof Error }));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  assert.deepEqual(JSON.parse(stdout), { pets: [{ id: 1, name: 'Rex', categoryId: 1 }], error: true });
  const { stdout: types } = await run('ls', [out]);
  assert.match(types, /index\.d\.ts/);
});

test('the tarball carries the MIT license its package.json names', async () => {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: packageDir });
  const [packed] = JSON.parse(stdout) as { files: { path: string }[] }[];
  assert.ok(
    packed?.files.some((file) => file.path === 'LICENSE'),
    'LICENSE is in the tarball',
  );
  assert.match(await readFile(join(packageDir, 'LICENSE'), 'utf8'), /^MIT License/);
});
