import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drawOrder, headShare, parseSpreads, seededRandom, SPREADS, spreadsFor, zipfSampler } from './accounts.js';

test('the seeded random numbers are in [0, 1), the same for the same seed, and differ between seeds', () => {
  const [a, b, c] = [seededRandom(7), seededRandom(7), seededRandom(8)];
  const first = Array.from({ length: 1000 }, a);
  assert.deepEqual(Array.from({ length: 1000 }, b), first);
  assert.notDeepEqual(Array.from({ length: 1000 }, c), first);
  assert.ok(first.every((x) => x >= 0 && x < 1));
});

test('a Zipf sampler draws index k in proportion to (k+1)^-s', () => {
  const count = 50;
  const s = 1.1;
  const draw = zipfSampler(count, s, seededRandom(1));
  const draws = 200_000;
  const counts = new Array<number>(count).fill(0);
  for (let i = 0; i < draws; i++) {
    const index = draw();
    counts[index] = (counts[index] ?? 0) + 1;
  }
  const total = Array.from({ length: count }, (_, k) => (k + 1) ** -s).reduce((x, y) => x + y);
  for (const k of [0, 1, 4, 49]) {
    const expected = ((k + 1) ** -s / total) * draws;
    assert.ok(Math.abs((counts[k] as number) - expected) < 5 * Math.sqrt(expected) + 5, `index ${k}: ${counts[k]} drawn, ${expected.toFixed(0)} expected`);
  }
});

test('a Zipf sampler over one account always draws it; none is an error', () => {
  const draw = zipfSampler(1, 1.1, seededRandom(1));
  assert.deepEqual([draw(), draw(), draw()], [0, 0, 0]);
  assert.throws(() => zipfSampler(0, 1.1, Math.random), /at least one account/);
});

test('the uniform spread draws its 2,000 accounts evenly; the Zipf one puts about 13 % on its head', () => {
  const uniform = drawOrder(SPREADS.uniform, 200_000);
  assert.ok(uniform.every((index) => index < 2000));
  assert.equal(new Set(uniform).size, 2000);
  assert.ok(headShare(uniform) < 0.001, `head ${headShare(uniform)}`);
  const zipf = drawOrder(SPREADS.zipf, 200_000);
  assert.ok(zipf.every((index) => index < 100_000));
  const head = headShare(zipf);
  // H(100000, 1.1) is about 7.4: the first account takes 1 ÷ 7.4 of the draws.
  assert.ok(head > 0.12 && head < 0.15, `head ${head}`);
  assert.deepEqual(drawOrder(SPREADS.zipf, 1000), drawOrder(SPREADS.zipf, 1000), 'the same order every run');
});

test('the uniform plan stays under the lease threshold; --quick keeps the spreads but a smaller Zipf population', () => {
  assert.equal(SPREADS.uniform.plan, 'pro');
  assert.equal(spreadsFor(true).uniform, SPREADS.uniform);
  assert.equal(spreadsFor(true).zipf.accounts, 5000);
  assert.equal(spreadsFor(false), SPREADS);
});

test('--accounts takes spreads by name, in a fixed order, and refuses others', () => {
  assert.deepEqual(parseSpreads(undefined), ['one', 'uniform', 'zipf']);
  assert.deepEqual(parseSpreads('zipf,one'), ['one', 'zipf']);
  assert.throws(() => parseSpreads('many'), /many is none of one, uniform, zipf/);
});
