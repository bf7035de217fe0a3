import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { startService } from '@animal-store/testkit';

// Issue 29, point 12: Node 20 ran without a word. The gateway, the core and npm start each say it
// in one line at start. The tests run on a supported Node; a process is made to report another
// version by a preload that rewrites `process.version` before anything else runs.

const run = promisify(execFile);
const FAKE_VERSION = 'v20.19.5';
const AS_NODE_20 = `data:text/javascript,Object.defineProperty(process, "version", { value: "${FAKE_VERSION}" });`;
const MAINS = {
  gateway: fileURLToPath(import.meta.resolve('@animal-store/gateway/main')),
  core: fileURLToPath(import.meta.resolve('@animal-store/core/main')),
};
const LAUNCHER = fileURLToPath(new URL('../scripts/start-stack.ts', import.meta.url));
const ENV = { PORT: '0', AUTH: 'off', RATE_LIMITS: 'off' };

/** What a service logs up to its listening line, run as `node [--import preload] --import tsx main`. */
async function startLog(entry: string, preload: string[]): Promise<{ warnings: { msg: string; nodeVersion?: string }[] }> {
  const service = await startService({ command: [process.execPath, ...preload, '--import', 'tsx', entry], env: ENV, group: false });
  try {
    const lines = service
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; nodeVersion?: string });
    assert.ok(
      lines.some((line) => line.msg.endsWith('listening')),
      service.output(),
    );
    return { warnings: lines.filter((line) => line.level === 40) };
  } finally {
    await service.stop();
  }
}

for (const [name, entry] of Object.entries(MAINS)) {
  test(`the ${name} warns once, at start, on a Node it does not support, naming the version, the supported ones and why`, async () => {
    const { warnings } = await startLog(entry, ['--import', AS_NODE_20]);
    const node = warnings.filter((line) => line.nodeVersion !== undefined);
    assert.equal(node.length, 1, JSON.stringify(warnings));
    assert.equal(node[0]?.nodeVersion, FAKE_VERSION);
    assert.match(node[0]?.msg ?? '', /^Node\.js v20\.19\.5 is not supported: run 22\.11 or newer on the 22 line, or 24 and newer; .*end of life/);
  });

  test(`the ${name} says nothing of the Node it runs on when it is a supported one (${process.version})`, async () => {
    const { warnings } = await startLog(entry, []);
    assert.deepEqual(
      warnings.filter((line) => line.nodeVersion !== undefined || /not supported/.test(line.msg)),
      [],
    );
  });
}

test('npm start warns on a Node it does not support, before its own checks', async () => {
  // A bad PORT ends it at once, after the warning: no service is started.
  const failed = await run(process.execPath, ['--import', AS_NODE_20, '--import', 'tsx', LAUNCHER], { env: { PATH: process.env.PATH ?? '', PORT: 'x' } }).then(
    () => assert.fail('a bad PORT exits 2'),
    (error: { code: number; stderr: string }) => error,
  );
  assert.equal(failed.code, 2);
  assert.match(
    failed.stderr,
    /^npm start: warning: Node\.js v20\.19\.5 is not supported: run 22\.11 or newer .*end of life.*\nnpm start: invalid configuration\n/,
  );
});
