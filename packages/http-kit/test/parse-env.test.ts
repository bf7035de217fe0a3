import assert from 'node:assert/strict';
import { BlockList } from 'node:net';
import { test } from 'node:test';
import { z } from 'zod';
import { parseEnv, settings } from '../src/index.js';

const LIMITS = settings({
  port: ['PORT', z.coerce.number().int().min(0).max(65535).default(8080)],
  mode: ['MODE', z.enum(['on', 'off']).default('on')],
  strict: ['STRICT', z.stringbool().default(true)],
  hosts: [
    'HOSTS',
    z
      .string()
      .transform((value) => value.split(','))
      .default(['a']),
  ],
});
const Schema = z.object(LIMITS.shape).transform((env) => ({ ...LIMITS.read(env), nested: { list: [{ deep: true }] }, blocks: new BlockList() }));

test('an empty variable means unset: its default applies', () => {
  const result = parseEnv(Schema, { PORT: '', MODE: '', STRICT: '' });
  assert.ok(result.ok);
  assert.equal(result.value.port, 8080);
  assert.equal(result.value.mode, 'on');
  assert.equal(result.value.strict, true);
});

test('every problem is reported, one line each, named by its variable', () => {
  const result = parseEnv(Schema, { PORT: '70000', MODE: 'sideways', STRICT: 'perhaps', UNRELATED: 'x' });
  assert.ok(!result.ok);
  assert.equal(result.problems.length, 3);
  assert.deepEqual(
    result.problems.map((problem) => problem.split(':')[0]),
    ['PORT', 'MODE', 'STRICT'],
  );
  for (const problem of result.problems) assert.doesNotMatch(problem, /\n/);
});

test('the value is frozen all the way down, class instances aside', () => {
  const result = parseEnv(Schema, { HOSTS: 'x,y' });
  assert.ok(result.ok);
  const { value } = result;
  assert.deepEqual(value.hosts, ['x', 'y']);
  for (const part of [value, value.hosts, value.nested, value.nested.list, value.nested.list[0]]) assert.ok(Object.isFrozen(part));
  assert.equal(Object.isFrozen(value.blocks), false, 'a BlockList keeps its own state');
});

test('settings: one line declares the variable, the field and its type', () => {
  assert.deepEqual(Object.keys(LIMITS.shape), ['PORT', 'MODE', 'STRICT', 'HOSTS']);
  assert.deepEqual(LIMITS.read({ PORT: 1, MODE: 'off', STRICT: false, HOSTS: [], OTHER: 2 }), { port: 1, mode: 'off', strict: false, hosts: [] });
});
