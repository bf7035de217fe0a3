import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { parseDockerfile, stagesOf } from './dockerfile.js';

// Where the project names a Node version: the engines of every package.json, the Dockerfile's base
// image, the stand-in that builds that image here, and the Node CI installs. They drift apart one
// edit at a time, so each is read from its file and checked against the others.

const root = new URL('../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const enginesOf = (path: string) => (JSON.parse(read(path)) as { engines?: { node?: string } }).engines?.node;
const PACKAGE_FILES = ['package.json', ...readdirSync(new URL('packages/', root)).map((name) => `packages/${name}/package.json`)];

/** Whether a range made of `^X.Y`, `>=X` and `>=X.Y` clauses joined by `||` admits major `major`. */
function admitsMajor(range: string, major: number): boolean {
  return range.split('||').some((clause) => {
    const match = /^\s*(\^|>=)(\d+)(?:\.\d+){0,2}\s*$/.exec(clause);
    assert.ok(match !== null, `clause "${clause}" is not one this test reads`);
    return match[1] === '^' ? Number(match[2]) === major : major >= Number(match[2]);
  });
}

const ENGINES = enginesOf('package.json') ?? '';

test('every package.json names the same engines.node, which admits 22 and 24 but not 20', () => {
  for (const file of PACKAGE_FILES) assert.equal(enginesOf(file), ENGINES, file);
  assert.deepEqual(
    [20, 22, 24].map((major) => admitsMajor(ENGINES, major)),
    [false, true, true],
  );
});

test('the Dockerfile, its local stand-in and CI run Node majors the engines admit', () => {
  const imageMajors = new Set(stagesOf(parseDockerfile(read('Dockerfile'))).flatMap((stage) => /^node:(\d+)/.exec(stage.image)?.[1] ?? []));
  assert.equal(imageMajors.size, 1, 'every Node stage of the Dockerfile uses one major');
  const [imageMajor] = [...imageMajors];
  const standins = read('scripts/docker-standins.sh');
  assert.match(standins, new RegExp(`^readonly NODE_TAG=node:${imageMajor}-slim$`, 'm'));
  assert.match(standins, new RegExp(`^readonly NODE_MAJOR=${imageMajor}$`, 'm'));
  const ciMajor = /^readonly CI_NODE_MAJOR=(\d+)$/m.exec(read('.ci/run'))?.[1];
  for (const major of [imageMajor, ciMajor]) assert.ok(admitsMajor(ENGINES, Number(major)), `engines "${ENGINES}" admit Node ${major}`);
});
