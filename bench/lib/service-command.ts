import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The services the bench starts, by their folder under packages/. */
export type ServiceKind = 'core' | 'gateway';

/** A process to start: its arguments, `node` first, and the folder it runs in. */
export interface ServiceCommand {
  readonly command: readonly string[];
  readonly cwd: string;
}

/** The checkouts built by this process: `npm run build` once each, however many services start. */
const built = new Set<string>();

/** `npm run build` in the checkout at `root`, unless this process did it already. */
function buildOnce(root: string): void {
  if (built.has(root)) return;
  // tsc prints what stops the build on stdout: shown, as the bench's own output is.
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  built.add(root);
}

/**
 * How the checkout at `root` runs a service, so that the bench measures it as it ships. A package
 * whose `npm start` runs node (`exec node --conditions=… dist/main.js`) runs that command in its
 * folder, on the JavaScript that `npm run build` compiles (`build`, once per checkout: tsc's
 * incremental build takes under a second when nothing changed). A checkout from before the build
 * step, whose `npm start` ran tsx (`bench:compare` of an older ref), runs its sources through tsx,
 * as the bench always started it.
 */
export function serviceCommand(root: string, kind: ServiceKind, build: (root: string) => void = buildOnce): ServiceCommand {
  const folder = join(root, 'packages', kind);
  const { scripts } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const start = /^(?:exec )?node (.+)$/.exec(scripts?.start ?? '');
  if (start?.[1] === undefined) return { command: [process.execPath, '--import', 'tsx', join(folder, 'src/main.ts')], cwd: root };
  build(root);
  return { command: [process.execPath, ...start[1].split(' ')], cwd: folder };
}
