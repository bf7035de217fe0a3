import { readFileSync } from 'node:fs';

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

/** User + system CPU ms of one process (all its threads) so far. */
function processCpuMs(pid: number): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // Fields after the command name (which may hold spaces), from field 3 (state): utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** The process and its children (nginx's workers), as Linux lists them. */
function withChildren(pid: number): number[] {
  const children = read(`/proc/${pid}/task/${pid}/children`) ?? '';
  return [
    pid,
    ...children
      .split(' ')
      .filter((id) => id !== '')
      .map(Number),
  ];
}

/** CPU ms used so far by the processes `pids` and their children; `undefined` off Linux. */
export function cpuMsOf(pids: readonly number[]): number | undefined {
  let total = 0;
  for (const pid of pids.flatMap(withChildren)) {
    const ms = processCpuMs(pid);
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
  /** The scenario's own proxy process (a gateway, nginx, HAProxy, the Fastify stack); none for the core alone. */
  readonly proxy: number | undefined;
  readonly core: number | undefined;
  readonly redis: number | undefined;
  /** The whole machine, the load generator included. */
  readonly machine: number | undefined;
}

/**
 * What runs one load and divides the CPU each part used during it by the requests answered: its
 * proxy's own process, the core, Redis (`pids`), and the whole machine.
 */
export function cpuMeter(pids: { readonly core: number | undefined; readonly redis: number | undefined }) {
  const ofPid = (pid: number | undefined) => (pid === undefined ? undefined : cpuMsOf([pid]));
  const now = (proxy: number | undefined) => ({ proxy: ofPid(proxy), core: ofPid(pids.core), redis: ofPid(pids.redis), machine: machineBusyMs() });
  return async <R extends { readonly requests: number }>(proxy: { readonly pid: number | undefined } | undefined, load: () => Promise<R>) => {
    const before = now(proxy?.pid);
    const result = await load();
    const after = now(proxy?.pid);
    const perRequest = (key: keyof CpuPerRequest) => {
      const [from, to] = [before[key], after[key]];
      return from === undefined || to === undefined || result.requests === 0 ? undefined : ((to - from) * 1000) / result.requests;
    };
    const cpu: CpuPerRequest = { proxy: perRequest('proxy'), core: perRequest('core'), redis: perRequest('redis'), machine: perRequest('machine') };
    return { result, cpu };
  };
}
