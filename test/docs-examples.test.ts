import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { commandSkipReason, temporaryDir } from '@animal-store/testkit';
import { blockProblem, compareOutput, examplesOf, parseBlocks, type Block, type Example } from './docs-examples.js';

// Every example of README.md and docs/*.md, run as a reader would: against the stack `npm start`
// starts (here on free ports), with bash and curl. The convention is in docs-examples.ts and in
// docs/development.md. Files run one after another (README.md first, then docs/ by name), each
// file's examples in document order, all against one stack: what one example creates, the next
// one sees.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LAUNCHER = join(ROOT, 'scripts', 'start-stack.ts');
const FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const BLOCKS: Block[] = FILES.flatMap((file) => parseBlocks(file, readFileSync(join(ROOT, file), 'utf8')));
const RUN = BLOCKS.filter((block) => block.lang === 'console' && block.notRun === undefined);
const EXAMPLES: Example[] = RUN.flatMap((block) => examplesOf(block));

/**
 * What the stack adds to `npm start`'s defaults: an allowed browser origin, so that the CORS
 * examples of docs/operating.md run (nothing changes for requests without `Origin`), and quieter
 * logs.
 */
const STACK_ENV = { CORS_ORIGINS: 'https://app.example.com', LOG_LEVEL: 'warn' };

interface Stack {
  readonly gateway: URL;
  readonly core: URL;
  /** The gateway's admin listener (`localhost:9464` in the documentation). */
  readonly admin: URL;
  /** The demo admin token, printed in the banner's `export` line. */
  readonly adminToken: string;
  readonly keys: Readonly<Record<'free' | 'pro' | 'business' | 'enterprise', string>>;
  /** The stack's throwaway keyring, printed in its `revoke one: KEYS_DIR=…` line. */
  readonly keysDir: string;
  /** The stack's copy of the shipped plans, printed in its `export` line. */
  readonly plansFile: string;
  stop(): Promise<number | null>;
}

async function startStack(): Promise<Stack> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', LAUNCHER], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: '0', CORE_PORT: '0', METRICS_PORT: '0', ...STACK_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Never leave the stack behind, even when this process ends without running `after`.
  const orphanGuard = () => child.kill('SIGINT');
  process.once('exit', orphanGuard);
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const banner = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start printed no banner in 60 s:\n${output}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`npm start exited (${code}) before its banner:\n${output}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/Ctrl-C stops both/.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    });
  });
  const find = (pattern: RegExp, what: string) => {
    const found = pattern.exec(banner)?.[1];
    if (found === undefined) throw new Error(`no ${what} in the banner of npm start:\n${banner}`);
    return found;
  };
  const key = (plan: string) => find(new RegExp(`^ {4}${plan} +(eyJ\\S+)$`, 'm'), `${plan} key`);
  return {
    gateway: new URL(find(/^ {2}gateway {2}(http:\/\/\S+)/m, 'gateway URL')),
    core: new URL(find(/^ {2}core {5}(http:\/\/\S+)/m, 'core URL')),
    admin: new URL(find(/^ {2}admin {4}(http:\/\/\S+)/m, 'admin URL')),
    adminToken: find(/^ {2}export .* ADMIN_TOKEN=(\S+)$/m, 'admin token'),
    keys: { free: key('free'), pro: key('pro'), business: key('business'), enterprise: key('enterprise') },
    keysDir: find(/revoke one: KEYS_DIR=(\S+) /, 'keyring directory'),
    plansFile: find(/^ {2}export .* PLANS_FILE=(\S+)(?: |$)/m, 'plans file'),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      process.removeListener('exit', orphanGuard);
      return code;
    },
  };
}

/** The documented addresses (`localhost:8080`, `127.0.0.1:8081`, `localhost:9464`…) replaced by the stack's. */
function onStack(text: string, stack: Stack): string {
  const hosts: Record<string, string> = { '8080': stack.gateway.host, '8081': stack.core.host, '9464': stack.admin.host };
  return text.replace(/\b(?:localhost|127\.0\.0\.1):(8080|8081|9464)\b/g, (_, port: string) => hosts[port] as string);
}

/**
 * Runs one command with bash in the repository's root, stderr into stdout as a terminal shows
 * them. Variables a command sets (`KEY=$(…)`) are kept for the next commands of the same file.
 */
function runCommand(command: string, env: Record<string, string>, stateFile: string): Promise<{ status: number | null; output: string }> {
  const script = `exec 2>&1\nset -a\n. "$DOCS_STATE"\n${command}\n__status=$?\nexport -p > "$DOCS_STATE"\nexit $__status\n`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: ROOT, env: { ...env, DOCS_STATE: stateFile }, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, output });
    });
  });
}

test('every block of the documentation follows the example convention (no curl left unrun)', () => {
  const problems = BLOCKS.map(blockProblem).filter((problem) => problem !== undefined);
  assert.deepEqual(problems, []);
  const curls = BLOCKS.filter((block) => block.lang === 'console').flatMap((block) => block.lines.filter((line) => /\bcurl\b/.test(line)).map(() => block));
  assert.ok(
    curls.every((block) => RUN.includes(block)),
    'every curl in a console block is run',
  );
  assert.ok(EXAMPLES.length >= 30, `the documentation runs ${EXAMPLES.length} examples; fewer than expected, did the parser lose some?`);
});

describe('documentation examples, run against npm start', { skip: commandSkipReason('curl', 'apt-get install curl') }, () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    if (stack === undefined) return;
    const code = await stack.stop();
    assert.equal(code, 0, 'npm start stops cleanly on Ctrl-C');
  });

  for (const file of FILES) {
    const examples = EXAMPLES.filter((example) => example.file === file);
    if (examples.length === 0) continue;
    test(`${file}: ${examples.length} examples`, async (t) => {
      const stateFile = join(temporaryDir('docs-examples-'), 'state.sh');
      writeFileSync(stateFile, '');
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        KEY: stack.keys.pro,
        FREE_KEY: stack.keys.free,
        PRO_KEY: stack.keys.pro,
        BUSINESS_KEY: stack.keys.business,
        ENTERPRISE_KEY: stack.keys.enterprise,
        KEYS_DIR: stack.keysDir,
        PLANS_FILE: stack.plansFile,
        ADMIN_TOKEN: stack.adminToken,
      };
      for (const example of examples) {
        const title = `${example.file}:${example.line} $ ${example.command.split('\n')[0]}`;
        await t.test(title.length > 140 ? `${title.slice(0, 139)}…` : title, async () => {
          const { status, output } = await runCommand(onStack(example.command, stack), env, stateFile);
          assert.equal(status, 0, `the command exited with ${status}:\n${output}`);
          const problems = compareOutput(
            example.expected.map((line) => onStack(line, stack)),
            output,
          );
          assert.deepEqual(problems, [], `${example.file}:${example.line} does not print what it documents:\n${problems.join('\n')}`);
        });
      }
    });
  }
});

// The checks themselves: a documented status or header that differs must fail.
test('the comparison fails on another status, a missing or different header, another body', () => {
  const answer =
    'HTTP/1.1 201 Created\r\nlocation: /v1/pets/7\r\nx-request-id: abc\r\ncontent-type: application/json\r\n\r\n{"id":7,"name":"Rex","categoryId":1}';
  assert.deepEqual(compareOutput(['HTTP/1.1 201 Created', 'Location: /v1/pets/…', 'X-Request-Id: …', '', '{"name":"Rex","id":7,"categoryId":1}'], answer), []);
  assert.equal(compareOutput(['HTTP/1.1 200 OK'], answer).length, 1);
  assert.equal(compareOutput(['HTTP/1.1 201 Created', 'location: /v1/pets/8'], answer).length, 1);
  assert.equal(compareOutput(['HTTP/1.1 201 Created', 'deprecation: @1'], answer).length, 1);
  assert.equal(compareOutput(['HTTP/1.1 201 Created', '', '{"id":8,"name":"Rex","categoryId":1}'], answer).length, 1);
  assert.equal(compareOutput(['HTTP/1.1 201 Created', '', '{"id":…,"name":"Tom"…}'], answer).length, 1);
  assert.equal(compareOutput(['{"code":"not_found"}'], '{"code":"not_found","status":404}').length, 1, 'a body without … is compared whole');
  assert.deepEqual(compareOutput(['JTI  ACCOUNT  PLAN', '…  acme  pro'], 'JTI      ACCOUNT  PLAN\nx1  demo  free\nx2       acme     pro\n'), []);
  assert.equal(compareOutput(['…  acme  pro', 'JTI  ACCOUNT  PLAN'], 'JTI  ACCOUNT  PLAN\nx2  acme  pro\n').length, 1, 'text lines must come in order');
});

test('blocks: console blocks run, marked or sh blocks do not, and curl may not hide in an unrun console block', () => {
  const blocks = parseBlocks(
    'x.md',
    [
      '```console',
      '$ curl -s a \\',
      '  -H b',
      '{"a":1}',
      '```',
      '',
      '<!-- not run: needs docker -->',
      '```console',
      '$ docker compose up',
      '```',
      '```sh',
      'curl -s x',
      '```',
      '<!-- not run: no -->',
      '```console',
      '$ curl -s x',
      '```',
      '```sh',
      '$ curl -s x',
      '```',
    ].join('\n'),
  );
  assert.deepEqual(
    blocks.map((block) => [block.lang, block.notRun]),
    [
      ['console', undefined],
      ['console', 'needs docker'],
      ['sh', undefined],
      ['console', 'no'],
      ['sh', undefined],
    ],
  );
  assert.deepEqual(examplesOf(blocks[0] as Block), [{ file: 'x.md', line: 2, command: 'curl -s a \\\n  -H b', expected: ['{"a":1}'] }]);
  assert.deepEqual(
    blocks.map(blockProblem).map((problem) => problem !== undefined),
    [false, false, false, true, true],
  );
});
