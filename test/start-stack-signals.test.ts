import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { freePort } from '@animal-store/testkit';

// Issue 39, point 3.2: `npm start` left its whole stack running (core, gateway, workers, ports, and
// the demo keyring with its private key and admin token) when only npm's pid got SIGTERM.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LAUNCHER = join(ROOT, 'scripts', 'start-stack.ts');

/** True while something accepts connections on 127.0.0.1:`port`. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** The launcher's keyrings in `dir` (tsx keeps its cache there too). */
const keyrings = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('animal-store-keys-'));

/** Waits until no port of `ports` is listening (at most `ms`); the ports still listening then. */
async function closedWithin(ports: readonly number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const open = (await Promise.all(ports.map(async (port) => ((await listening(port)) ? [port] : [])))).flat();
    if (open.length === 0 || Date.now() > deadline) return open;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts `command` with the stack's three ports and a TMPDIR of its own; resolves once `ready` matches what it printed. */
async function startWith(command: string, args: string[], ready: RegExp) {
  const ports = { gateway: await freePort(), core: await freePort(), admin: await freePort() };
  const tmp = mkdtempSync(join(tmpdir(), 'stack-signals-'));
  const child: ChildProcess = spawn(command, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmp,
      TMPDIR: tmp,
      PORT: String(ports.gateway),
      CORE_PORT: String(ports.core),
      METRICS_PORT: String(ports.admin),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in time:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('error', (error) => (clearTimeout(timer), reject(error)));
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`exited (${code}) before it was ready:\n${output}`))));
  });
  return { child, exited, ports: Object.values(ports), tmp, output: () => output };
}

/** Waits for the stack's first process to exit: a stack that does not stop fails the test (with what it printed) instead of hanging it. */
async function exitedWithin(stack: Awaited<ReturnType<typeof startWith>>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not exited ${ms} ms after SIGTERM:\n${stack.output()}`)), ms);
  });
  try {
    await Promise.race([stack.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * After a test: every process of the stack its lines name (`"pid":N`) that is still there, and
 * still a service of this repository (a pid may have been reused), gets SIGKILL, so that a failing
 * test leaves nothing behind (nor a pipe that keeps the runner waiting).
 */
function killLeftovers(output: string): void {
  for (const pid of new Set([...output.matchAll(/"pid":(\d+)/g)].map((match) => Number(match[1])))) {
    let command: string;
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // gone already, as it should be
    }
    if (command.includes(ROOT)) process.kill(pid, 'SIGKILL');
  }
}

test('SIGTERM to npm start’s pid alone stops the whole stack and deletes the demo keyring', async () => {
  const stack = await startWith('npm', ['start'], /Ctrl-C stops both/);
  try {
    assert.equal(keyrings(stack.tmp).length, 1, 'the keyring is in TMPDIR');
    process.kill(stack.child.pid as number, 'SIGTERM');
    await exitedWithin(stack, 30_000);
    assert.deepEqual(await closedWithin(stack.ports, 15_000), [], `every port closed:\n${stack.output()}`);
    assert.deepEqual(keyrings(stack.tmp), [], 'the demo keyring (private key, admin token) is gone');
  } finally {
    killLeftovers(stack.output());
    rmSync(stack.tmp, { recursive: true, force: true });
  }
});

test('SIGTERM to the launcher while the gateway is still starting stops what started and deletes the keyring', async () => {
  // The core's log line says it listens: the launcher is starting the gateway next.
  const stack = await startWith(process.execPath, ['--import', 'tsx', LAUNCHER], /"msg":"core listening/);
  try {
    process.kill(stack.child.pid as number, 'SIGTERM');
    await exitedWithin(stack, 30_000);
    // Longer than a gateway takes to start: one left behind would be listening by then.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    assert.deepEqual(await closedWithin(stack.ports, 10_000), [], `every port closed:\n${stack.output()}`);
    assert.deepEqual(keyrings(stack.tmp), [], 'the keyring is gone');
  } finally {
    killLeftovers(stack.output());
    rmSync(stack.tmp, { recursive: true, force: true });
  }
});
