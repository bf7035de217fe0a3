import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nodeSupport } from '../src/node-support.js';

// Issue 29, point 12: Node 20 ran without a word. nodeSupport decides what the services say.

test('nodeSupport admits what engines admits (^22.11 || >=24) and nothing else', () => {
  const cases: [string, boolean][] = [
    ['v18.20.4', false],
    ['v20.19.5', false],
    ['20.19.5', false],
    ['v21.7.3', false],
    ['v22.10.0', false],
    ['v22.11.0', true],
    ['22.22.0', true],
    ['v23.11.1', false],
    ['v24.0.0', true],
    ['v24.21.0', true],
    ['v25.2.1', true],
    ['v26.0.0-nightly2026', true],
    ['', false],
    ['garbage', false],
  ];
  for (const [version, supported] of cases) assert.equal(nodeSupport(version).supported, supported, version);
});

test('the refusal names the running version, the supported ones and why', () => {
  const messageOf = (version: string) => {
    const result = nodeSupport(version);
    assert.equal(result.supported, false, version);
    return result.supported ? '' : result.message;
  };
  assert.equal(
    messageOf('v20.19.5'),
    'Node.js v20.19.5 is not supported: run 22.11 or newer on the 22 line, or 24 and newer; Node.js 20 has reached its end of life (no security fixes) and is not tested here',
  );
  assert.match(messageOf('v22.3.0'), /^Node\.js v22\.3\.0 is not supported: .*22\.11/);
  assert.match(messageOf('v23.1.0'), /Node\.js 23 is not a long-term support line/);
  assert.match(messageOf('nonsense'), /its version cannot be read$/);
});
