import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@animal-store/testkit';

/**
 * A redis-server run under valgrind's callgrind, whose instructions can be counted over a stretch
 * of a run: what a change costs Redis, the same on a quiet machine and on a busy one (time is not;
 * these 2-core machines are shared). About 50 times slower than Redis alone: for short runs.
 */
export interface CallgrindRedis {
  readonly url: string;
  /** Starts counting from zero. */
  zero(): void;
  /** The instructions redis-server ran since `zero()`. */
  instructions(): number;
  /** Stops it; with `keep`, leaves the profile of the last stretch and returns its path. */
  close(): string | undefined;
}

/** Why instructions cannot be counted here, or false when they can. */
export function callgrindSkipReason(): string | false {
  for (const tool of ['valgrind', 'callgrind_control']) {
    if (spawnSync(tool, ['--help'], { stdio: 'ignore' }).error !== undefined) return `${tool} is not installed`;
  }
  return false;
}

/**
 * `keep`: close() leaves the last dump (what `instructions()` read), for `callgrind_annotate`:
 * Redis's own functions by their instructions, where its binary has symbols (Debian's is stripped:
 * a redis-server built from source, first on PATH).
 */
export async function startCallgrindRedis(options: { readonly keep?: boolean } = {}): Promise<CallgrindRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'callgrind-redis-'));
  const port = await freePort();
  // --hz 1: serverCron's background work, counted in any stretch, stays small.
  const args = ['--tool=callgrind', `--callgrind-out-file=${dir}/out`, 'redis-server', '--port', String(port), '--bind', '127.0.0.1'];
  const child = spawn('valgrind', [...args, '--save', '', '--appendonly', 'no', '--hz', '1'], { stdio: 'ignore' });
  const control = (option: string) => spawnSync('callgrind_control', [option, String(child.pid)], { stdio: 'ignore', timeout: 60_000 });
  const dumps = () => readdirSync(dir).filter((name) => name !== 'out');
  return {
    url: `redis://127.0.0.1:${port}`,
    zero() {
      for (const name of dumps()) rmSync(join(dir, name));
      control('-z');
    },
    instructions() {
      control('-d');
      let total = 0;
      for (const name of dumps()) {
        const found = readFileSync(join(dir, name), 'utf8').match(/^(?:summary|totals): (\d+)/m);
        if (found !== null) total = Math.max(total, Number(found[1]));
      }
      return total;
    },
    close() {
      child.kill('SIGKILL');
      const last = dumps().sort().pop();
      if (options.keep === true && last !== undefined) return join(dir, last);
      rmSync(dir, { recursive: true, force: true });
      return undefined;
    },
  };
}
