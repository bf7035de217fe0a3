import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_ENV } from './config.js';
import { freePort } from './free-port.js';

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** The server's working directory (its AOF/RDB files live here). */
  readonly dir: string;
  /** The running process's id (it changes on restart); benchmarks read its CPU time. */
  readonly pid: number | undefined;
  /** Stops the process (SIGTERM, or the given signal) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the server again on the same port and directory, after a stop. */
  restart(): Promise<void>;
  /** Stops the server for good and removes its directory. */
  close(): Promise<void>;
}

export interface StartRedisOptions {
  /** Extra `redis-server` arguments, e.g. `['--appendonly', 'yes']`. */
  readonly args?: readonly string[];
}

const STARTUP_TIMEOUT_MS = 10_000;

function redisServerBin(): string | undefined {
  const candidate = TEST_ENV.redisServerBin ?? 'redis-server';
  const probe = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? candidate : undefined;
}

/**
 * Why Redis-backed tests cannot run here, or `false` when they can. Under CI a missing
 * `redis-server` is an error, not a skip: CI must run every test.
 */
export function redisSkipReason(): string | false {
  if (redisServerBin() !== undefined) return false;
  const reason = 'redis-server is not installed (set REDIS_SERVER_BIN or put it on PATH)';
  if (TEST_ENV.ci) throw new Error(`CI=true but ${reason}`);
  return reason;
}

/**
 * Starts a private `redis-server` on a free loopback port, with no persistence unless `args` asks
 * for it. Retries with another port when the one picked was taken in between.
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisServer> {
  const bin = redisServerBin();
  if (bin === undefined) throw new Error('redis-server is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'redis-test-'));
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...(options.args ?? [])];
    try {
      let child = await launch(bin, args);
      const server: RedisServer = {
        port,
        url: `redis://127.0.0.1:${port}`,
        dir,
        get pid() {
          return child.pid;
        },
        async stop(signal = 'SIGTERM') {
          await terminate(child, signal);
        },
        async restart() {
          child = await launch(bin, args);
        },
        async close() {
          await terminate(child, 'SIGKILL');
          rmSync(dir, { recursive: true, force: true });
        },
      };
      return server;
    } catch (error) {
      if (attempt >= 5 || !String(error).includes('Address already in use')) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
}

function launch(bin: string, args: readonly string[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => fail(new Error(`redis-server did not start in time:\n${output}`)), STARTUP_TIMEOUT_MS);
    function fail(error: Error): void {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    }
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolve(child);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => fail(new Error(`redis-server exited with ${code}:\n${output}`)));
    child.once('error', fail);
  });
}

function terminate(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
