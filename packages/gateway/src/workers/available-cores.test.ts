import assert from 'node:assert/strict';
import { test } from 'node:test';
import { autoWorkers, cfsQuotaCores, cpuListSize, cpuMaxCores, quotaFiles, workersFor } from './available-cores.js';

test('cgroup v2 cpu.max: "max" is no limit, "quota period" is their ratio', () => {
  assert.equal(cpuMaxCores('max 100000\n'), undefined);
  assert.equal(cpuMaxCores('150000 100000\n'), 1.5);
  assert.equal(cpuMaxCores('50000 100000'), 0.5);
  assert.equal(cpuMaxCores('400000 100000'), 4);
  assert.equal(cpuMaxCores(''), undefined);
  assert.equal(cpuMaxCores('lots 100000'), undefined);
});

test('cgroup v1 cfs quota and period: -1 is no limit', () => {
  assert.equal(cfsQuotaCores('-1\n', '100000\n'), undefined);
  assert.equal(cfsQuotaCores('200000\n', '100000\n'), 2);
  assert.equal(cfsQuotaCores('25000', '100000'), 0.25);
  assert.equal(cfsQuotaCores('100000', '0'), undefined);
});

test('affinity lists as /proc/self/status writes them', () => {
  assert.equal(cpuListSize('0-1'), 2);
  assert.equal(cpuListSize('0-3,6\n'), 5);
  assert.equal(cpuListSize('7'), 1);
  assert.equal(cpuListSize('3-1'), undefined);
  assert.equal(cpuListSize(''), undefined);
});

test('auto: the CPUs, bounded by the quota rounded up, at least 1, at most 64', () => {
  assert.equal(workersFor(8, []), 8);
  assert.equal(workersFor(8, [undefined]), 8);
  assert.equal(workersFor(8, [1]), 1, 'a sidecar given one CPU gets one worker');
  assert.equal(workersFor(8, [1.5]), 2, 'rounded up: two workers use 1.5 CPUs whole');
  assert.equal(workersFor(8, [0.25]), 1);
  assert.equal(workersFor(2, [4]), 2, 'a quota above the CPUs does not add workers');
  assert.equal(workersFor(8, [6, 3]), 3, 'the tightest of the cgroup and its ancestors');
  assert.equal(workersFor(256, []), 64);
});

test("the quota files: the process's cgroup and its ancestors, v2 and v1", () => {
  assert.deepEqual(quotaFiles('0::/\n').v2, ['/sys/fs/cgroup/cpu.max']);
  assert.deepEqual(quotaFiles('0::/system.slice/gateway.service\n').v2, [
    '/sys/fs/cgroup/system.slice/gateway.service/cpu.max',
    '/sys/fs/cgroup/system.slice/cpu.max',
    '/sys/fs/cgroup/cpu.max',
  ]);
  const v1 = quotaFiles('4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n0::/\n').v1;
  assert.ok(v1.includes('/sys/fs/cgroup/cpu,cpuacct/docker/abc'));
  assert.ok(v1.includes('/sys/fs/cgroup/cpu,cpuacct'), "the mount's root: a container's own cgroup");
  assert.ok(v1.includes('/sys/fs/cgroup/cpu'));
});

test('autoWorkers reads the affinity and every quota file it finds', () => {
  const files: Record<string, string> = {
    '/proc/self/status': 'Name:\tnode\nCpus_allowed_list:\t0-7\n',
    '/proc/self/cgroup': '0::/kubepods/pod1/ctr\n',
    '/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max': 'max 100000\n',
    '/sys/fs/cgroup/kubepods/pod1/cpu.max': '250000 100000\n',
    '/sys/fs/cgroup/cpu.max': 'max 100000\n',
  };
  assert.equal(
    autoWorkers((path) => files[path]),
    3,
  );
  const v1: Record<string, string> = {
    '/proc/self/status': 'Cpus_allowed_list:\t0-3\n',
    '/proc/self/cgroup': '2:cpu,cpuacct:/docker/abc\n',
    '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '100000\n',
    '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n',
  };
  assert.equal(
    autoWorkers((path) => v1[path]),
    1,
  );
  const unlimited: Record<string, string> = { '/proc/self/status': 'Cpus_allowed_list:\t0-1\n', '/proc/self/cgroup': '0::/\n' };
  assert.equal(
    autoWorkers((path) => unlimited[path]),
    2,
  );
});
