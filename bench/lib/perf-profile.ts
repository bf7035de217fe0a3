import { execFile, spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { promisify } from 'node:util';

/**
 * Where a process's CPU goes, by Linux `perf` sampling on CPU time (`cpu-clock`): a process that
 * waits for a core is not sampled, so on a loaded, shared host the shares stay those of its own
 * work (V8's `--cpu-prof` samples on wall time: a process descheduled mid-function is charged to
 * that function, and its shares swing with the host's load). A Node process run with
 * `--perf-prof` writes its JIT code to `jit-<pid>.dump` in its working directory, which
 * `perf inject --jit` turns into names (functions moved or freed by V8 stay named right, unlike
 * with `--perf-basic-prof`). Frames of inlined functions are their caller's: a part is best named
 * by the frames it enters through (a subscriber's file) as well as by its libraries'.
 */

const run = promisify(execFile);

/**
 * perf's environment for a profile kept in `file`'s folder: its build-id cache (`$HOME/.debug`)
 * there too, where every JIT dump of every run would otherwise stay (gigabytes after a few runs).
 */
const perfEnv = (file: string) => ({ ...process.env, HOME: dirname(file) });

/** Why perf cannot sample here (not installed, or not allowed), or `false` when it can. */
export function perfSkipReason(): string | false {
  // -N: nothing added to the build-id cache.
  const probe = spawnSync('perf', ['record', '-q', '-N', '-e', 'cpu-clock', '-o', '/dev/null', '--', 'true'], { encoding: 'utf8' });
  if (probe.error !== undefined) return 'perf is not installed (apt-get install linux-perf)';
  return probe.status === 0 ? false : `perf cannot record here: ${probe.stderr.trim().split('\n').at(-1) ?? `exit ${probe.status}`}`;
}

/** Samples process `pid` (all its threads, with call stacks) on CPU time for `seconds`, into `file`. */
export async function recordCpu(pid: number, seconds: number, file: string): Promise<void> {
  // -k mono: the clock of node's JIT dumps, which perf inject matches samples against.
  await run('perf', ['record', '-q', '-k', 'mono', '-e', 'cpu-clock', '-F', '1999', '-g', '-p', String(pid), '-o', file, '--', 'sleep', String(seconds)], {
    timeout: (seconds + 30) * 1000,
    env: perfEnv(file),
  });
}

/** The samples of a `recordCpu` file, JIT code named from the dumps its process wrote, as `perf script` prints them. */
export async function scriptOf(file: string): Promise<string> {
  const injected = `${file}.jit`;
  await run('perf', ['inject', '--jit', '-i', file, '-o', injected], { maxBuffer: 1 << 26, env: perfEnv(file) });
  const { stdout } = await run('perf', ['script', '-i', injected], { maxBuffer: 1 << 30, env: perfEnv(file) });
  return stdout;
}

/**
 * Each sample's stack of `perf script` output, innermost frame first, each frame its symbol and,
 * in parentheses, its object (`finish_task_switch.isra.0 ([kernel.kallsyms])`), offsets dropped.
 */
export function parseStacks(script: string): string[][] {
  const stacks: string[][] = [];
  let stack: string[] = [];
  for (const line of script.split('\n')) {
    if (line.trim() === '') {
      if (stack.length > 0) stacks.push(stack);
      stack = [];
    } else if (line.startsWith('\t') || line.startsWith(' ')) {
      // `\t  7f3a12 JS:*'forward file:///…/forward.ts:1:540+0x2b9 (/…/jitted-123-45.so)`
      const frame = /^\s*[0-9a-f]+ (.*)$/.exec(line)?.[1];
      if (frame !== undefined) stack.push(frame.replace(/\+0x[0-9a-f]+ \(/, ' ('));
    }
  }
  if (stack.length > 0) stacks.push(stack);
  return stacks;
}

/**
 * The share of samples whose stack holds a frame matching each part (inclusive: a part's callees
 * count as its own; a sample counts once per part, and may count in several parts).
 */
export function sharesOf(stacks: readonly (readonly string[])[], parts: Readonly<Record<string, RegExp>>): Record<string, number> {
  const names = Object.keys(parts);
  const counts = new Map(names.map((name) => [name, 0]));
  for (const stack of stacks) {
    for (const name of names) if (stack.some((frame) => (parts[name] as RegExp).test(frame))) counts.set(name, (counts.get(name) as number) + 1);
  }
  return Object.fromEntries(names.map((name) => [name, stacks.length === 0 ? 0 : (counts.get(name) as number) / stacks.length]));
}
