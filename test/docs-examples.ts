// Reading and checking the examples of README.md and docs/*.md (run by docs-examples.test.ts).
//
// The convention, as docs/development.md states it for authors:
// - A ```console block is run. Each line starting with `$ ` is a command (a line ending in `\`
//   continues on the next one); the lines after it, up to the next command, are its expected
//   output. Every command must exit 0.
// - Expected output that starts with a status line (`HTTP/1.1 200 OK`) is an HTTP answer as
//   `curl -si` prints it: the status line must match, each header line shown must be in the answer
//   (names in any case, values exactly; headers not shown are not checked), and the body, when one
//   is shown, must match. Output that starts with `{` or `[` is a body alone (`curl -s`). Any
//   other output is text: each line shown must appear in the output, in that order (other lines
//   may come between), with runs of spaces matching any run of spaces.
// - A body without `…` is compared as JSON (key order aside) when it is JSON, else as text. In
//   any line or body, `…` stands for any text: ids, dates, request ids, remaining counts.
// - A block that cannot run against `npm start` is a ```sh block without `$ ` prompts, or is
//   marked with `<!-- not run: <reason> -->` on the line before it. A console block that is not
//   run may not hold `curl` at all: every curl in a console block is run.

/** A fenced block of a Markdown file. */
export interface Block {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly lines: readonly string[];
  /** The reason given by a `<!-- not run: … -->` marker right before the block. */
  readonly notRun: string | undefined;
}

/** One command of a console block and the output it is documented to print. */
export interface Example {
  readonly file: string;
  /** 1-based line of the `$ ` line. */
  readonly line: number;
  readonly command: string;
  readonly expected: readonly string[];
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([A-Za-z0-9_+-]*)/;
const NOT_RUN = /^<!--\s*not run:\s*(.*?)\s*-->$/;

/** Every fenced block of `text`, with the indentation of its fence taken off its lines. */
export function parseBlocks(file: string, text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] as string);
    if (open === null) continue;
    const [, indent = '', fence = '', lang = ''] = open;
    let previous = i - 1;
    while (previous >= 0 && (lines[previous] as string).trim() === '') previous--;
    const marker = previous >= 0 ? NOT_RUN.exec((lines[previous] as string).trim()) : null;
    const closing = new RegExp(`^${fence[0] === '`' ? '`' : '~'}{${fence.length},}$`);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] as string;
      if (closing.test(line.trim())) break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    blocks.push({ file, line: i + 1, lang, lines: body, notRun: marker?.[1] });
    i = j;
  }
  return blocks;
}

/** The commands of a console block with their expected output. Throws when there is output before any command. */
export function examplesOf(block: Block): Example[] {
  const examples: { file: string; line: number; command: string; expected: string[] }[] = [];
  for (let i = 0; i < block.lines.length; i++) {
    const line = block.lines[i] as string;
    if (line.startsWith('$ ')) {
      let command = line.slice(2);
      const start = i;
      while (command.endsWith('\\') && i + 1 < block.lines.length) command += `\n${block.lines[++i] as string}`;
      examples.push({ file: block.file, line: block.line + 1 + start, command, expected: [] });
    } else if (examples.length > 0) {
      (examples.at(-1) as { expected: string[] }).expected.push(line);
    } else if (line.trim() !== '') {
      throw new Error(`${block.file}:${block.line + 1 + i}: output before the first "$ " command of a console block`);
    }
  }
  for (const example of examples) {
    while (example.expected.length > 0 && (example.expected.at(-1) as string).trim() === '') example.expected.pop();
  }
  return examples;
}

/** What the documentation rules forbid in a block, or undefined. */
export function blockProblem(block: Block): string | undefined {
  const where = `${block.file}:${block.line}`;
  const prompts = block.lines.some((line) => line.startsWith('$ '));
  if (block.lang !== 'console') {
    return prompts ? `${where}: "$ " prompts belong in a console block (a ${block.lang || 'plain'} block is never run)` : undefined;
  }
  if (block.notRun !== undefined) {
    if (block.notRun === '') return `${where}: a not-run marker must say why`;
    if (block.lines.some((line) => /\bcurl\b/.test(line)))
      return `${where}: a console block with curl must run (make it a sh block without prompts if it cannot)`;
    return undefined;
  }
  return prompts ? undefined : `${where}: a console block without a "$ " command`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `pattern` with `…` matching any text (and, when `spaces`, runs of spaces any run of spaces). */
function wildcard(pattern: string, options: { spaces?: boolean; multiline?: boolean } = {}): RegExp {
  const any = options.multiline === true ? '[\\s\\S]*' : '.*';
  const parts = pattern.split('…').map((part) => {
    const escaped = escapeRegExp(part);
    return options.spaces === true ? escaped.replace(/ +/g, '\\s+') : escaped;
  });
  return new RegExp(`^${parts.join(any)}$`);
}

function isDeepEqualJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => isDeepEqualJson(item, b[i]));
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => key in b && isDeepEqualJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
    );
  }
  return a === b;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Problems of a body against the one documented, or none. */
function compareBody(expected: string, actual: string): string[] {
  const want = expected.trim();
  const got = actual.trim();
  if (want === '') return [];
  if (want.includes('…')) return wildcard(want, { multiline: true }).test(got) ? [] : [`body: expected\n  ${want}\ngot\n  ${got}`];
  const wantJson = parseJson(want);
  if (wantJson.ok) {
    const gotJson = parseJson(got);
    if (!gotJson.ok) return [`body: expected JSON\n  ${want}\ngot\n  ${got}`];
    return isDeepEqualJson(wantJson.value, gotJson.value) ? [] : [`body: expected\n  ${want}\ngot\n  ${got}`];
  }
  const lines = (text: string) =>
    text
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n');
  return lines(want) === lines(got) ? [] : [`body: expected\n  ${want}\ngot\n  ${got}`];
}

const STATUS_LINE = /^HTTP\/[\d.]+ \d{3}\b/;

/** Status line, headers and body of an answer as `curl -i` prints it (interim 1xx answers skipped). */
function parseHttp(output: string): { status: string; headers: [string, string][]; body: string } | undefined {
  let rest = output.replace(/\r\n/g, '\n');
  for (;;) {
    if (!STATUS_LINE.test(rest)) return undefined;
    const end = rest.indexOf('\n\n');
    const head = end === -1 ? rest : rest.slice(0, end);
    const body = end === -1 ? '' : rest.slice(end + 2);
    const [status = '', ...lines] = head.split('\n');
    if (/^HTTP\/[\d.]+ 1\d\d\b/.test(status)) {
      rest = body;
      continue;
    }
    const headers = lines.map((line): [string, string] => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    });
    return { status: status.trim(), headers, body };
  }
}

/**
 * What differs between the output a command printed and the output documented for it, as a list
 * of problems (empty: it matches). See the convention at the top of this file.
 */
export function compareOutput(expectedLines: readonly string[], actual: string): string[] {
  const expected = [...expectedLines];
  while (expected.length > 0 && (expected.at(-1) as string).trim() === '') expected.pop();
  if (expected.length === 0) return [];
  const first = (expected[0] as string).trim();

  if (STATUS_LINE.test(first)) {
    const answer = parseHttp(actual);
    if (answer === undefined) return [`expected an HTTP answer (${first}), got:\n  ${actual.trim().slice(0, 500)}`];
    const problems: string[] = [];
    if (!wildcard(first).test(answer.status)) problems.push(`status: expected "${first}", got "${answer.status}"`);
    let i = 1;
    for (; i < expected.length && (expected[i] as string).trim() !== ''; i++) {
      const line = (expected[i] as string).trim();
      const colon = line.indexOf(':');
      if (colon <= 0) {
        problems.push(`documented header line without a name: "${line}"`);
        continue;
      }
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      const found = answer.headers.filter(([header]) => header === name).map(([, got]) => got);
      if (found.length === 0) problems.push(`header ${name}: missing (expected "${value}")`);
      else if (!found.some((got) => wildcard(value).test(got))) problems.push(`header ${name}: expected "${value}", got "${found.join('", "')}"`);
    }
    problems.push(...compareBody(expected.slice(i + 1).join('\n'), answer.body));
    return problems;
  }

  if (first.startsWith('{') || first.startsWith('[')) return compareBody(expected.join('\n'), actual);

  const got = actual
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => line.trim());
  let at = 0;
  for (const line of expected) {
    const want = line.trim();
    if (want === '') continue;
    const pattern = wildcard(want, { spaces: true });
    while (at < got.length && !pattern.test(got[at] as string)) at++;
    if (at === got.length) return [`output: no line like "${want}" (in this order) in:\n  ${actual.trim().split('\n').join('\n  ')}`];
    at++;
  }
  return [];
}
