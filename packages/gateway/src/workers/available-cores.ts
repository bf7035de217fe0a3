import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { MAX_WORKERS } from '../config/process-env.js';

/*
 * `WORKERS=auto`: the cores this process may use. Two limits apply: the CPUs it may run on (its
 * affinity, `taskset`, `docker --cpuset-cpus`) and the CPU time its cgroup may take (`docker
 * --cpus`, a Kubernetes CPU limit, systemd's CPUQuota), which a container's CPU count does not
 * show. The quota is rounded up: 1.5 CPUs are used whole by 2 workers, and only two thirds by 1.
 * Node's `os.availableParallelism()` rounds a quota down (libuv follows Rust), so the affinity is
 * read here and the quota applied on top. The parsers are pure; `autoWorkers` reads the files.
 */

/** The CPUs of an affinity list as `/proc/self/status` writes it (`0-3,6` → 5); `undefined` if unreadable. */
export function cpuListSize(list: string): number | undefined {
  let count = 0;
  for (const part of list.trim().split(',')) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (range === null) return undefined;
    const first = Number(range[1]);
    const last = range[2] === undefined ? first : Number(range[2]);
    if (last < first) return undefined;
    count += last - first + 1;
  }
  return count === 0 ? undefined : count;
}

/** The cores a cgroup v2 `cpu.max` allows (`150000 100000` → 1.5); `undefined` for `max` (no limit) or nonsense. */
export function cpuMaxCores(text: string): number | undefined {
  const [quota, period] = text.trim().split(/\s+/);
  if (quota === undefined || quota === 'max') return undefined;
  return quotaCores(quota, period ?? '100000');
}

/** The cores a cgroup v1 `cpu.cfs_quota_us` and `cpu.cfs_period_us` allow; `undefined` for `-1` (no limit). */
export function cfsQuotaCores(quota: string, period: string): number | undefined {
  return quotaCores(quota.trim(), period.trim());
}

function quotaCores(quota: string, period: string): number | undefined {
  if (!/^\d+$/.test(quota) || !/^\d+$/.test(period) || Number(period) === 0 || Number(quota) === 0) return undefined;
  return Number(quota) / Number(period);
}

/**
 * The quota files that may bound this process, from `/proc/self/cgroup`: its own cgroup's and
 * every ancestor's (a parent's limit binds its children too). Inside a container whose cgroup v1
 * path names the host's hierarchy (`/docker/<id>`), only the mount's root exists, and it is the
 * container's: it is among the ancestors.
 */
export function quotaFiles(procSelfCgroup: string, root = '/sys/fs/cgroup'): { readonly v2: string[]; readonly v1: string[] } {
  const v2: string[] = [];
  const v1: string[] = [];
  for (const line of procSelfCgroup.split('\n')) {
    const [, controllers, path] = /^\d+:([^:]*):(\/.*)$/.exec(line.trim()) ?? [];
    if (controllers === undefined || path === undefined) continue;
    if (controllers === '') v2.push(...ancestors(root, path).map((dir) => join(dir, 'cpu.max')));
    else if (controllers.split(',').includes('cpu')) {
      for (const mount of [join(root, controllers), join(root, 'cpu'), join(root, 'cpu,cpuacct')]) {
        for (const dir of ancestors(mount, path)) if (!v1.includes(dir)) v1.push(dir);
      }
    }
  }
  return { v2, v1 };
}

/** `base + path` and each directory above it, up to `base`. */
function ancestors(base: string, path: string): string[] {
  const dirs: string[] = [];
  let dir = join(base, path);
  while (dir.startsWith(base) && !dirs.includes(dir)) {
    dirs.push(dir);
    if (dir === base) break;
    dir = dirname(dir);
  }
  return dirs;
}

/** How many workers `auto` means: the CPUs, bounded by the quota rounded up, at least 1, at most `MAX_WORKERS`. */
export function workersFor(cpus: number, quotas: readonly (number | undefined)[]): number {
  const limits = quotas.filter((quota): quota is number => quota !== undefined).map((quota) => Math.ceil(quota));
  return Math.max(1, Math.min(MAX_WORKERS, cpus, ...limits));
}

/** `workersFor` on this machine: the affinity from `/proc/self/status` and the cgroup quota files (Linux); elsewhere Node's count. */
export function autoWorkers(read: (path: string) => string | undefined = readText): number {
  const affinity = /^Cpus_allowed_list:\s*(.+)$/m.exec(read('/proc/self/status') ?? '')?.[1];
  const cpus = (affinity === undefined ? undefined : cpuListSize(affinity)) ?? availableParallelism();
  const files = quotaFiles(read('/proc/self/cgroup') ?? '');
  const quotas = [
    ...files.v2.map((file) => {
      const text = read(file);
      return text === undefined ? undefined : cpuMaxCores(text);
    }),
    ...files.v1.map((dir) => {
      const quota = read(join(dir, 'cpu.cfs_quota_us'));
      const period = read(join(dir, 'cpu.cfs_period_us'));
      return quota === undefined || period === undefined ? undefined : cfsQuotaCores(quota, period);
    }),
  ];
  return workersFor(cpus, quotas);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
