import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { cpuMsOf, parseStat, processCount, programCount, treeCpuMs, type ProcessStat } from './cpu.js';

const onLinux = process.platform === 'linux' ? false : 'reads Linux /proc';

test('a /proc/<pid>/stat line: the parent and the ticks, whatever the command name holds', () => {
  // Fields as Linux 6 prints them; the name holds a space and a ')'.
  const line =
    '4242 (node (a) b) S 4200 4242 4200 0 -1 4194560 1200 0 0 0 150 25 30 5 20 0 11 0 9000 1000000 5000 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0';
  assert.deepEqual(parseStat(line), { pid: 4242, ppid: 4200, name: 'node (a) b', ownTicks: 175, reapedChildrenTicks: 35 });
  assert.equal(parseStat('garbage'), undefined);
});

test("a tree's CPU: its processes' own ticks and their reaped children's, strangers left out", () => {
  const table: ProcessStat[] = [
    { pid: 1, ppid: 0, name: 'init', ownTicks: 1000, reapedChildrenTicks: 5000 },
    { pid: 10, ppid: 1, name: 'node', ownTicks: 3, reapedChildrenTicks: 7 }, // the primary: 7 ticks of a worker that ended
    { pid: 11, ppid: 10, name: 'node', ownTicks: 20, reapedChildrenTicks: 0 },
    { pid: 12, ppid: 10, name: 'node', ownTicks: 30, reapedChildrenTicks: 0 },
    { pid: 13, ppid: 12, name: 'esbuild', ownTicks: 1, reapedChildrenTicks: 0 },
    { pid: 20, ppid: 1, name: 'node', ownTicks: 400, reapedChildrenTicks: 0 },
  ];
  assert.equal(treeCpuMs(table, 10), (3 + 7 + 20 + 30 + 1) * 10);
  assert.equal(treeCpuMs(table, 12), 31 * 10);
  assert.equal(treeCpuMs(table, 99), undefined);
  // The primary and its two workers; the compiler one of them started is not a worker.
  assert.equal(programCount(table, 10), 3);
  assert.equal(programCount(table, 99), 0);
});

// A parent that starts a child, which spins until it has used 400 ms of CPU once told, then ends.
// The parent says 'started' once the child runs its script, not at its spawn: until Node has
// started, the child's process is named 'node', not yet 'MainThread' as its parent is.
const CHILD = `process.stdout.write('up\\n'); process.stdin.once('data', () => { const from = process.cpuUsage(); for (;;) { const used = process.cpuUsage(from); if (used.user + used.system >= 400_000) break; } process.exit(0); });`;
const PARENT = `const { spawn } = require('node:child_process');
const child = spawn(process.execPath, ['-e', ${JSON.stringify(CHILD)}], { stdio: ['pipe', 'pipe', 'inherit'] });
child.stdout.once('data', () => console.log('started'));
child.once('exit', () => console.log('reaped'));
process.stdin.once('data', () => child.stdin.write('go\\n'));
setInterval(() => {}, 1000);`;

test('a child that ended between two readings still counts (its time moves to the parent that reaped it)', { skip: onLinux, timeout: 30_000 }, async () => {
  const parent = spawn(process.execPath, ['-e', PARENT], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const lines = createInterface({ input: parent.stdout })[Symbol.asyncIterator]();
    assert.equal((await lines.next()).value, 'started');
    const pid = parent.pid as number;
    assert.equal(processCount(pid), 2);
    const before = cpuMsOf([pid]) as number;
    parent.stdin.write('go\n');
    assert.equal((await lines.next()).value, 'reaped');
    assert.equal(processCount(pid), 1);
    const after = cpuMsOf([pid]) as number;
    // 400 ms spun, read in 10 ms ticks (each reading may truncate up to one tick per process).
    assert.ok(after - before >= 380, `the tree used ${after - before} ms between the readings; the child alone spun 400`);
  } finally {
    parent.kill('SIGKILL');
    await once(parent, 'exit');
  }
});
