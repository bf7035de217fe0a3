import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { temporaryDir } from '@animal-store/testkit';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));

test('the checked-in types are what openapi-typescript makes of the interface document (npm run generate -w @animal-store/client)', async () => {
  const out = join(temporaryDir('client-types-'), 'interface.ts');
  const bin = join(packageDir, 'node_modules', '.bin', 'openapi-typescript');
  await promisify(execFile)(bin, ['../core/openapi.json', '--output', out], { cwd: packageDir });
  const checkedIn = readFileSync(join(packageDir, 'src', 'generated', 'interface.ts'), 'utf8');
  assert.equal(checkedIn, readFileSync(out, 'utf8'), 'src/generated/interface.ts drifted from the document: run npm run generate -w @animal-store/client');
});
