import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time read from Linux's /proc, to say where a scenario's cycles went: on a shared 2-core
 * machine the load generator, the core, Redis and the proxy all compete, so throughput alone
 * cannot tell a proxy's own cost. Elsewhere every reading is `undefined` and the report says so.
 */
const TICK_MS = 10; // USER_HZ is 100 on every Linux architecture Node supports

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** One process as /proc/<pid>/stat tells it: its parent, and its CPU ticks. */
export interface ProcessStat {
  readonly pid: number;
  readonly ppid: number;
  /** Its command name (`comm`: `node`, `nginx`, `esbuild`). */
  readonly name: string;
  /** utime + stime: its own threads, running or ended. */
  readonly ownTicks: number;
  /** cutime + cstime: its children that ended and that it reaped (and theirs, reaped in turn). */
  readonly reapedChildrenTicks: number;
}

/** Parses one /proc/<pid>/stat line; `undefined` for a line it cannot read. */
export function parseStat(stat: string): ProcessStat | undefined {
  // The command name (field 2) may hold spaces and parentheses: the fields after the last ')' are
  // state (3), ppid (4), …, utime (14), stime (15), cutime (16), cstime (17).
  const close = stat.lastIndexOf(')');
  const pid = Number.parseInt(stat, 10);
  if (close < 0 || !Number.isInteger(pid)) return undefined;
  const fields = stat.slice(close + 2).split(' ');
  const [ppid, utime, stime, cutime, cstime] = [1, 11, 12, 13, 14].map((i) => Number(fields[i] ?? Number.NaN)) as [number, number, number, number, number];
  if (![ppid, utime, stime, cutime, cstime].every(Number.isFinite)) return undefined;
  return { pid, ppid, name: stat.slice(stat.indexOf('(') + 1, close), ownTicks: utime + stime, reapedChildrenTicks: cutime + cstime };
}

/** Every process on the machine now, from /proc/<pid>/stat (one that ends while this reads is left out). */
export function readProcesses(): ProcessStat[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    const stat = read(`/proc/${entry}/stat`);
    const parsed = stat === undefined ? undefined : parseStat(stat);
    return parsed === undefined ? [] : [parsed];
  });
}

/** `root` and every process descended from it, in one reading of the process table. */
export function treeOf(table: readonly ProcessStat[], root: number): ProcessStat[] {
  const children = new Map<number, ProcessStat[]>();
  for (const entry of table) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry]);
  const first = table.find((entry) => entry.pid === root);
  const tree: ProcessStat[] = [];
  const queue = first === undefined ? [] : [first];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    tree.push(next);
    // A pid is its own parent nowhere but in a corrupt reading: never loop on it.
    queue.push(...(children.get(next.pid) ?? []).filter((child) => child.pid !== next.pid));
  }
  return tree;
}

/**
 * The CPU ms a process tree has used so far, from one reading of the table: every process's own
 * time, and the time of its children that ended, which Linux adds to the parent that reaps them
 * (cutime, cstime). So a gateway of several processes is read whole, and a worker that is replaced
 * between two readings (a reload, a crash) still counts: until it ends in its own figure, then in
 * its parent's once reaped, and its successor from when it started. Missed only: a process that
 * outlived its parent (moved out of the tree), and one that ended and was reaped while the table
 * was being read, between its parent's line and its own (microseconds).
 */
export function treeCpuMs(table: readonly ProcessStat[], root: number): number | undefined {
  const tree = treeOf(table, root);
  if (tree.length === 0) return undefined;
  return tree.reduce((sum, entry) => sum + entry.ownTicks + entry.reapedChildrenTicks, 0) * TICK_MS;
}

/**
 * How many processes of the same program as `root` its tree holds (a gateway's primary and its
 * workers; nginx's master and worker): a helper it started is not counted (tsx's esbuild service,
 * which a gateway keeps once it compiled TypeScript with a cold cache), though its CPU is.
 */
export function programCount(table: readonly ProcessStat[], root: number): number {
  const tree = treeOf(table, root);
  return tree.filter((entry) => entry.name === tree[0]?.name).length;
}

/** `programCount` now; `undefined` off Linux or when `pid` is gone. */
export function processCount(pid: number): number | undefined {
  const count = programCount(readProcesses(), pid);
  return count === 0 ? undefined : count;
}

/**
 * CPU ms used so far by the processes `pids` and all their descendants (a gateway's primary and
 * its workers, nginx's master and worker), those that ended included (see `treeCpuMs`);
 * `undefined` off Linux or when one of them is gone.
 */
export function cpuMsOf(pids: readonly number[]): number | undefined {
  const table = readProcesses();
  let total = 0;
  for (const pid of pids) {
    const ms = treeCpuMs(table, pid);
    if (ms === undefined) return undefined;
    total += ms;
  }
  return total;
}

/** CPU ms all cores of the machine spent busy so far (not idle, waiting on I/O, or stolen). */
export function machineBusyMs(): number | undefined {
  const line = read('/proc/stat')
    ?.split('\n')
    .find((l) => l.startsWith('cpu '));
  if (line === undefined) return undefined;
  // user nice system idle iowait irq softirq steal: the work of this machine's own processes.
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  return ticks.reduce((sum, value, i) => (i === 3 || i === 4 || i === 7 ? sum : sum + value), 0) * TICK_MS;
}

/** CPU µs per request answered during a run (from /proc; undefined where it cannot be read). */
export interface CpuPerRequest {
  /**
   * The scenario's own proxy (a gateway, nginx, HAProxy, the Fastify stack), every process of it
   * summed (a gateway's primary and workers); none for the core alone.
   */
  readonly proxy: number | undefined;
  readonly core: number | undefined;
  readonly redis: number | undefined;
  /** The whole machine, the load generator included. */
  readonly machine: number | undefined;
  /** The proxy's processes (`programCount`) at the start and at the end of the run (a gateway with `WORKERS=2`: 3, its primary and two workers). */
  readonly proxyProcesses?: { readonly start: number; readonly end: number };
}

/**
 * What runs one load and divides the CPU each part used during it by the requests answered: its
 * proxy's processes, the core, Redis (`pids`), and the whole machine. Each reading takes the
 * process table once, just before and just after the load.
 */
export function cpuMeter(pids: { readonly core: number | undefined; readonly redis: number | undefined }) {
  const now = (proxy: number | undefined) => {
    const table = readProcesses();
    const of = (pid: number | undefined) => (pid === undefined ? undefined : treeCpuMs(table, pid));
    return {
      proxy: of(proxy),
      core: of(pids.core),
      redis: of(pids.redis),
      machine: machineBusyMs(),
      processes: proxy === undefined ? 0 : programCount(table, proxy),
    };
  };
  return async <R extends { readonly requests: number }>(proxy: { readonly pid: number | undefined } | undefined, load: () => Promise<R>) => {
    const before = now(proxy?.pid);
    const result = await load();
    const after = now(proxy?.pid);
    const perRequest = (key: 'proxy' | 'core' | 'redis' | 'machine') => {
      const [from, to] = [before[key], after[key]];
      return from === undefined || to === undefined || result.requests === 0 ? undefined : ((to - from) * 1000) / result.requests;
    };
    const cpu: CpuPerRequest = {
      proxy: perRequest('proxy'),
      core: perRequest('core'),
      redis: perRequest('redis'),
      machine: perRequest('machine'),
      ...(before.processes === 0 ? {} : { proxyProcesses: { start: before.processes, end: after.processes } }),
    };
    return { result, cpu };
  };
}

/** CPU ms of the one process `pid` so far (user + system), from /proc: its children not counted. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The pids of the children of `pid` (a gateway's primary: its workers), from /proc. */
export function childPids(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean).map(Number);
}
