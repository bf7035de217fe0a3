import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { LISTEN_BACKLOG } from '../src/serve.js';

const SERVE = new URL('../src/serve.ts', import.meta.url).href;

/** `ss` (iproute2) shows a listening socket's backlog as its Send-Q. */
function ssSkipReason(): string | false {
  if (process.platform !== 'linux') return 'listen backlogs are read with ss, on Linux only';
  try {
    execFileSync('ss', ['-V'], { stdio: 'ignore' });
    return false;
  } catch {
    if (process.env.CI === 'true') throw new Error('ss is missing (apt-get install iproute2); CI=true needs it');
    return 'ss is not installed (apt-get install iproute2)';
  }
}

test('serve() listens with a backlog of LISTEN_BACKLOG, not Node’s 511', { skip: ssSkipReason() }, async () => {
  const script = `import { createServer } from 'node:http'; import { serve } from ${JSON.stringify(SERVE)};
serve(createServer((req, res) => res.end()), { name: 'probe', host: '127.0.0.1', port: 0, shutdownTimeoutMs: 1000,
  logger: { info: (fields) => console.log(JSON.stringify(fields)), fatal: () => {} } });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const found = /"url":"([^"]+)"/.exec(output);
        if (found !== null) resolve(found[1] as string);
      });
      child.once('exit', (code) => reject(new Error(`the probe exited with ${code}: ${output}`)));
    });
    const { port } = new URL(url);
    // State, Recv-Q, Send-Q (the backlog of a listening socket), local address, peer address.
    const line = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' }).trim();
    const backlog = Number(line.split(/\s+/)[2]);
    // The kernel caps it at net.core.somaxconn.
    const cap = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    assert.equal(backlog, Math.min(LISTEN_BACKLOG, cap), line);
  } finally {
    child.kill('SIGKILL');
  }
});
