import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

const STREAM = new URL('../src/log-stream.ts', import.meta.url).href;

/**
 * Runs `body` in a node process whose `logger` writes through bufferedStdout(), and collects its
 * standard output. With `until`, the process is killed once its output holds that text, or after
 * 10 s without it.
 */
function run(body: string, until?: string): Promise<{ output: string; code: number | null }> {
  const script = `import { pino } from 'pino'; import { bufferedStdout } from ${JSON.stringify(STREAM)};
const logger = pino({ base: null }, bufferedStdout());
${body}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  const giveUp = until === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), 10_000);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (until !== undefined && output.includes(until)) child.kill('SIGKILL');
  });
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(giveUp);
      resolve({ output, code });
    }),
  );
}

const lines = (output: string) => output.trim().split('\n').filter(Boolean);

test('a line is written while the process runs, though it is far short of a block', async () => {
  // The process never ends by itself: the line can only come from the periodic flush.
  const { output, code } = await run(`logger.info('one'); setInterval(() => {}, 1000);`, '"msg":"one"');
  assert.equal(code, null, 'killed, not exited');
  assert.equal(lines(output).length, 1);
});

test('what waits is written when the process exits, by process.exit or by an uncaught exception', async () => {
  const exited = await run(`logger.info('a'); logger.info('b'); process.exit(3);`);
  assert.equal(exited.code, 3);
  assert.deepEqual(
    lines(exited.output).map((line) => (JSON.parse(line) as { msg: string }).msg),
    ['a', 'b'],
  );
  const crashed = await run(`logger.info('before the crash'); throw new Error('boom');`);
  assert.equal(crashed.code, 1);
  assert.match(crashed.output, /"msg":"before the crash"/);
});

test('lines come in order and whole, across blocks', async () => {
  const { output, code } = await run(`for (let i = 0; i < 2000; i++) logger.info({ i }, 'line'); process.exit(0);`);
  assert.equal(code, 0);
  const numbers = lines(output).map((line) => (JSON.parse(line) as { i: number }).i);
  assert.deepEqual(
    numbers,
    Array.from({ length: 2000 }, (_, i) => i),
  );
});
