// `npm start`: the pets core and the gateway in front of it, with embedded defaults (memory store,
// in-process limits, no Redis). Prints both URLs; Ctrl-C stops both cleanly.
//
// Environment: PORT (gateway, 8080), CORE_PORT (core, 8081), HOST (both); everything else is passed
// through to both processes, so LOG_LEVEL=warn npm start quiets them.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CORE_MAIN = fileURLToPath(new URL('../packages/core/src/main.ts', import.meta.url));
const GATEWAY_MAIN = fileURLToPath(new URL('../packages/gateway/src/main.ts', import.meta.url));
const host = process.env.HOST ?? '127.0.0.1';

/** Starts a service and resolves with the URL from its `listening` log line. */
function launch(name: string, entry: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, HOST: host, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let pending = '';
    let url: string | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      if (url !== undefined) return;
      pending += chunk.toString();
      for (const line of pending.split('\n')) {
        const found = /"url":"([^"]+)"/.exec(line)?.[1];
        if (found !== undefined) {
          url = found;
          pending = '';
          resolve({ child, url });
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with code ${code} before listening`)));
  });
}

const children: ChildProcess[] = [];
let stopping = false;

function stopAll(code: number): void {
  if (stopping) return;
  stopping = true;
  const alive = children.filter((child) => child.exitCode === null && child.signalCode === null);
  let left = alive.length;
  if (left === 0) process.exit(code);
  for (const child of alive) {
    child.once('exit', () => {
      if (--left === 0) process.exit(code);
    });
    child.kill('SIGTERM');
  }
}

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

try {
  const core = await launch('core', CORE_MAIN, { PORT: process.env.CORE_PORT ?? '8081' });
  children.push(core.child);
  const gateway = await launch('gateway', GATEWAY_MAIN, { PORT: process.env.PORT ?? '8080', UPSTREAM_URL: core.url });
  children.push(gateway.child);
  for (const child of children) {
    child.once('exit', (code) => {
      if (stopping) return;
      process.stderr.write(`a service exited unexpectedly (code ${code}); stopping the other\n`);
      stopAll(1);
    });
  }
  process.stdout.write(
    [
      '',
      `  gateway  ${gateway.url}   (the API: ${gateway.url}/v1/pets)`,
      `  core     ${core.url}   (behind the gateway)`,
      '',
      `  curl -s ${gateway.url}/v1/pets`,
      '  Ctrl-C stops both.',
      '',
      '',
    ].join('\n'),
  );
} catch (error) {
  process.stderr.write(`npm start: ${(error as Error).message}\n`);
  stopAll(1);
}
