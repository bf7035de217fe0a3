import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isCanonicalPath } from './canonical-path.js';

/** The rule written the slow, obvious way: the fast scan must agree with it on every path. */
function canonicalByTheRule(path: string): boolean {
  if (!path.startsWith('/') || path.includes('\\') || /[\x00-\x20\x7f]/.test(path)) return false;
  if (/%(2f|5c|00)/i.test(path)) return false;
  const segments = path.split('/').slice(1);
  return segments.every((segment, index) => {
    if (segment === '') return index === segments.length - 1 && segments.length === 1;
    const decoded = segment.replace(/%2e/gi, '.').replace(/%3b/gi, ';').split(';')[0];
    return decoded !== '.' && decoded !== '..';
  });
}

test('the fast scan agrees with the rule on 50,000 random paths made of the characters that matter', () => {
  const alphabet = ['/', '/', 'a', 'v1', '.', '%', '2', 'e', 'E', 'f', '3', 'b', ';', '\\', ' ', '\t', '\x7f', '5', 'c', '0'];
  // A fixed-seed generator: the same paths every run, so a failure can be replayed.
  let seed = 20;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 50_000; i++) {
    let path = next() < 0.9 ? '/' : '';
    const length = Math.floor(next() * 8);
    for (let j = 0; j < length; j++) path += alphabet[Math.floor(next() * alphabet.length)];
    assert.equal(isCanonicalPath(path), canonicalByTheRule(path), JSON.stringify(path));
  }
});

test('plain paths pass; a trailing slash, an empty segment or a relative path does not', () => {
  for (const path of ['/', '/v1/pets', '/v1/pets/42', "/v1/pet-s_~!$&'()*+,=:@"]) assert.equal(isCanonicalPath(path), true, path);
  for (const path of ['', 'v1/pets', '/v1/pets/', '//v1', '/v1//pets', '/v1/./pets', '/v1/%2e%2e/x', '/a%2fb', '/a;b/..;x']) {
    assert.equal(isCanonicalPath(path), canonicalByTheRule(path), path);
  }
  assert.equal(isCanonicalPath('/v1/pets/'), false);
  assert.equal(isCanonicalPath('/v1/%2e%2e/x'), false);
});
