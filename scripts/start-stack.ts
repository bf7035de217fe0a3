// `npm start`: the pets core and the gateway in front of it, with embedded defaults (memory store,
// in-process limits, no Redis). Prints both URLs; Ctrl-C stops both cleanly.
//
// Environment: PORT (gateway, 8080), CORE_PORT (core, 8081), HOST (both); everything else is passed
// through to both processes, so LOG_LEVEL=warn npm start quiets them.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const CORE_MAIN = fileURLToPath(new URL('../packages/core/src/main.ts', import.meta.url));
const GATEWAY_MAIN = fileURLToPath(new URL('../packages/gateway/src/main.ts', import.meta.url));
const host = process.env.HOST ?? '127.0.0.1';

/** The port to use: the one asked for, or a free one when asked for 0. */
async function portFor(requested: string | undefined, fallback: number): Promise<number> {
  const port = Number(requested ?? fallback);
  if (port !== 0) return port;
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port: free } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return free;
}

/** Starts a service on `port` and resolves once its /healthz answers (whatever its LOG_LEVEL). */
async function launch(name: string, entry: string, port: number, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, HOST: host, PORT: String(port), ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${name} did not answer ${url}/healthz in time`);
    const healthy = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) }).then((res) => res.ok, () => false);
    if (healthy) return { child, url };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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
  const corePort = await portFor(process.env.CORE_PORT, 8081);
  const gatewayPort = await portFor(process.env.PORT, 8080);
  const core = await launch('core', CORE_MAIN, corePort, {});
  children.push(core.child);
  const gateway = await launch('gateway', GATEWAY_MAIN, gatewayPort, { UPSTREAM_URL: core.url });
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
