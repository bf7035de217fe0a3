import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { GENERATED_FILE, generatedTypes } from '../../scripts/generate-types.js';

test("the checked-in types are what openapi-typescript makes of the gateway's document (npm run generate -w @animal-store/client)", async () => {
  assert.equal(
    readFileSync(GENERATED_FILE, 'utf8'),
    await generatedTypes(),
    'src/generated/interface.ts drifted from the document: run npm run generate -w @animal-store/client',
  );
});
