import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The services of the repository, by their folder under packages/. */
export type ServiceKind = 'core' | 'gateway';

/** A process to start: its arguments, `node` first, and the folder it runs in. */
export interface ServiceCommand {
  readonly command: readonly string[];
  readonly cwd: string;
}

/** This checkout's root. */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * Set by `npm test` (scripts/run-tests.mjs) once it has run `npm run build`: the test files then
 * start what was built and never build themselves, so no build writes dist/ while another file's
 * services read it.
 */
export const BUILT_ENV = 'ANIMAL_STORE_BUILT';

/** The checkouts built by this process: `npm run build` once each, however many services start. */
const built = new Set<string>();

/** `npm run build` in the checkout at `root`, unless this process, or `npm test` for it, did it already. */
export function buildOnce(root: string): void {
  if (built.has(root) || (root === REPOSITORY_ROOT && process.env[BUILT_ENV] === '1')) return;
  // tsc prints what stops the build on stdout: shown, as the caller's own output is.
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  built.add(root);
}

/**
 * How the checkout at `root` runs a service, so that tests and the bench run it as it ships. A
 * package whose `npm start` runs node (`exec node --conditions=… dist/main.js`) runs that command in
 * its folder, on the JavaScript that `npm run build` compiles (`build`, once per checkout: tsc's
 * incremental build takes about a second when nothing changed). A checkout from before the build
 * step, whose `npm start` ran tsx (`bench:compare` of an older ref), runs its sources through tsx.
 */
export function serviceCommand(root: string, kind: ServiceKind, build: (root: string) => void = buildOnce): ServiceCommand {
  const folder = join(root, 'packages', kind);
  const { scripts } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const start = /^(?:exec )?node (.+)$/.exec(scripts?.start ?? '');
  if (start?.[1] === undefined) return { command: [process.execPath, '--import', 'tsx', join(folder, 'src/main.ts')], cwd: root };
  build(root);
  return { command: [process.execPath, ...start[1].split(' ')], cwd: folder };
}

/** How a service run to its exit ended: its status and what it wrote. */
export interface ServiceRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a service of this checkout as it ships (`serviceCommand`) with only `env` and the PATH, and
 * waits for it to exit: for the starts that must fail (a setting that cannot work exits 2). Killed
 * after `timeoutMs` (20 s unless told), when it started after all.
 */
export function runServiceToExit(kind: ServiceKind, env: Readonly<Record<string, string>>, timeoutMs = 20_000): ServiceRun {
  const { command, cwd } = serviceCommand(REPOSITORY_ROOT, kind);
  const run = spawnSync(command[0] as string, command.slice(1), {
    cwd,
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}
