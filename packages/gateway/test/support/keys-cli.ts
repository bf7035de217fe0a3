import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEST_ENV, type RedisServer } from '@animal-store/testkit';

const KEYS_CLI = fileURLToPath(new URL('../../src/cli/keys.ts', import.meta.url));

/**
 * Runs `npm run keys -- …` as an operator would, in its own process. Asynchronously: the gateways
 * under test live in this process and must keep serving meanwhile.
 */
export function keysCli(env: Record<string, string>, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', KEYS_CLI, ...args],
      { env: { PATH: process.env.PATH, ...env }, timeout: 20_000 },
      (error, stdout, stderr) => {
        resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout: stdout.trim(), stderr });
      },
    );
  });
}

/**
 * Runs `keys revoke <jti>` and SIGKILLs Redis the moment the CLI process exits, as the attack run
 * did. Resolves with the CLI's exit code and how long after its exit the kill signal was sent
 * (the time to the `kill` call; the kernel delivers it at once).
 */
export function revokeThenKill(
  env: Record<string, string>,
  jti: string,
  redis: RedisServer,
): Promise<{ status: number | null; killedAfterMs: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', KEYS_CLI, 'revoke', jti], {
      env: { PATH: TEST_ENV.path, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (status) => {
      const exited = performance.now();
      const pid = redis.pid as number;
      const killedAfterMs = performance.now() - exited;
      process.kill(pid, 'SIGKILL');
      resolve({ status, killedAfterMs, stderr });
    });
  });
}
