import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

// The interface document is what consumers generate clients from: every answer the gateway can
// give an operation must be declared there, or a generated client treats it as undefined behaviour.
const DOCUMENT = JSON.parse(readFileSync(fileURLToPath(new URL('../../../core/openapi.json', import.meta.url)), 'utf8')) as {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { responses: Record<string, { headers?: Record<string, unknown> }> };
};

/** Statuses the gateway (or Node's parser in front of it) may answer any authenticated operation with. */
const FROM_THE_GATEWAY = ['401', '413', '429', '431', '502', '503', '504'];

test('every operation of the shipped document declares the answers the gateway can give it', () => {
  for (const [path, item] of Object.entries(DOCUMENT.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const missing = FROM_THE_GATEWAY.filter((status) => !(status in operation.responses));
      assert.deepEqual(missing, [], `${method.toUpperCase()} ${path}`);
    }
  }
});

test('405 for a method a path does not have is declared once, with Allow', () => {
  assert.ok(DOCUMENT.components.responses.MethodNotAllowed?.headers?.Allow);
});
