import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CORE_ENV_NAMES } from '@animal-store/core/config';
import { GATEWAY_ENV_NAMES } from '@animal-store/gateway';

// The documentation stands alone in a clone: its links stay inside the repository and resolve,
// and the settings it lists are the ones the services read.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FILES = [
  'README.md',
  'bench/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced blocks. */
function withoutFences(text: string): string {
  return text.replace(/^([ \t]*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\1\2[ \t]*$/gm, '');
}

/** The text outside fenced blocks and inline code, where links are links. */
function prose(text: string): string {
  return withoutFences(text).replace(/`[^`\n]*`/g, '');
}

/** The anchors GitHub makes for a Markdown file's headings. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading = ''] of withoutFences(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading
      .replace(/`/g, '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

test('every link of the README and docs/ is relative and resolves inside the repository', () => {
  const problems: string[] = [];
  for (const file of FILES) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const [, target = ''] of prose(text).matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
        problems.push(`${file}: ${target} leaves the repository`);
        continue;
      }
      const [path = '', anchor] = target.split('#');
      const resolved = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURIComponent(path));
      if (relative(ROOT, resolved).startsWith(`..${sep}`) || relative(ROOT, resolved) === '..') {
        problems.push(`${file}: ${target} points outside the repository`);
        continue;
      }
      if (!existsSync(resolved)) {
        problems.push(`${file}: ${target} does not exist`);
        continue;
      }
      if (anchor !== undefined && resolved.endsWith('.md') && statSync(resolved).isFile() && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) {
        problems.push(`${file}: ${target} names no heading of ${relative(ROOT, resolved)}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

/** The variable names in the first column of the table under `## heading` of configuration.md. */
function documentedVariables(heading: string): string[] {
  const text = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  assert.notEqual(start, -1, `configuration.md has a "## ${heading}" section`);
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1] as string);
}

test('configuration.md lists exactly the variables the gateway reads', () => {
  assert.deepEqual(documentedVariables('Gateway').sort(), [...GATEWAY_ENV_NAMES].sort());
});

test('configuration.md lists exactly the variables the core reads', () => {
  assert.deepEqual(documentedVariables('Pets core').sort(), [...CORE_ENV_NAMES].sort());
});

test("the anchors follow GitHub's rules", () => {
  assert.deepEqual(
    [...anchors('# Behind a reverse proxy (TRUST_PROXY)\n## Pet, NewPet, Error\n## `npm start`\n## A\n## A\n')],
    ['behind-a-reverse-proxy-trust_proxy', 'pet-newpet-error', 'npm-start', 'a', 'a-1'],
  );
});
