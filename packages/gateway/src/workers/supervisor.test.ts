import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { PLACEMENT_VARIABLE, placementFrom, placementOf } from '../assembly/placement.js';
import { loadConfig } from '../config/index.js';
import { createPort, memoryChannelPair, MESSAGE, QUESTION } from '../ipc/index.js';
import type { Generation } from './members.js';
import type { Spawn, SpawnedWorker } from './spawn.js';
import { createSupervisor } from './supervisor.js';

/** Settings a supervisor forks with: `workers` of them, told apart by `tag` (a variable of their environment). */
function generation(workers: number, tag: string): Generation {
  const result = loadConfig({ AUTH: 'off', RATE_LIMITS: 'off', WORKERS: String(workers) });
  assert.ok(result.ok);
  return { config: result.config, overrides: { TAG: tag }, workers, placement: placementOf(result.config, workers) };
}

/** A worker process played in memory: it says it listens when told (`listen`), and exits when told or killed. */
interface FakeWorker extends SpawnedWorker {
  readonly env: Readonly<Record<string, string>>;
  listen(): void;
  exit(code: number | null, signal: string | null): void;
  readonly exited: boolean;
}

/** A spawn of fake workers; `onSpawn` decides what each does (`listen()` at once, by default). */
function fakeCluster(onSpawn: (worker: FakeWorker) => void = (worker) => worker.listen()) {
  const spawned: FakeWorker[] = [];
  const spawn: Spawn = (env) => {
    const pair = memoryChannelPair();
    const port = createPort(pair.worker);
    const listeners: ((code: number | null, signal: string | null) => void)[] = [];
    let exited = false;
    const id = spawned.length + 1;
    const worker: FakeWorker = {
      id,
      pid: 100_000 + id,
      env,
      channel: pair.primary,
      onExit: (listener) => void listeners.push(listener),
      kill: (signal) => worker.exit(null, signal),
      listen: () => void port.send({ type: MESSAGE.listening, url: 'http://127.0.0.1:1', details: {} }),
      exit(code, signal) {
        if (exited) return;
        exited = true;
        pair.close();
        setImmediate(() => listeners.forEach((listener) => listener(code, signal)));
      },
      get exited() {
        return exited;
      },
    };
    port.answer(QUESTION.readiness, async () => true);
    // A hand-over (a reload retiring it) ends it once its connections are gone: here, at once.
    port.on(MESSAGE.handOver, () => worker.exit(0, null));
    spawned.push(worker);
    setImmediate(() => onSpawn(worker));
    return worker;
  };
  const tagged = (tag: string) => spawned.filter((worker) => !worker.exited && worker.env.TAG === tag);
  return { spawn, spawned, tagged };
}

const quiet = pino({ level: 'silent' });
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

test('each worker is forked with the placement its primary decided, WORKERS=auto worked out once', async () => {
  const cluster = fakeCluster();
  const supervisor = createSupervisor({ logger: quiet, spawn: cluster.spawn });
  const settings = generation(3, 'a');
  await supervisor.start(settings);
  for (const worker of cluster.spawned) assert.deepEqual(placementFrom(worker.env[PLACEMENT_VARIABLE]), settings.placement);
  await supervisor.stop();
});

test('a worker that listened and died while the others were starting is replaced (issue 39, 2.3)', async () => {
  let first = true;
  const cluster = fakeCluster((worker) => {
    if (first) {
      first = false;
      worker.listen();
      // It dies before the second says it listens.
      setImmediate(() => worker.exit(1, null));
      return;
    }
    setTimeout(() => worker.listen(), 10);
  });
  const deaths: number[] = [];
  const supervisor = createSupervisor({ logger: quiet, spawn: cluster.spawn, onDeath: () => deaths.push(1) });
  await supervisor.start(generation(2, 'a'));
  for (let i = 0; i < 50 && supervisor.members().filter((member) => member.state === 'listening').length < 2; i++) await settle();
  assert.equal(supervisor.members().filter((member) => member.state === 'listening').length, 2, 'two workers serve again');
  assert.equal(cluster.spawned.length, 3, 'one replacement');
  assert.equal(deaths.length, 1);
  await supervisor.stop();
});

for (const workers of [1, 2]) {
  test(`a stop that comes as the first of ${workers} workers says it listens, before the start has seen it: every worker stops, none is replaced`, async () => {
    const cluster = fakeCluster();
    const deaths: number[] = [];
    let stopping: Promise<void> | undefined;
    const supervisor = createSupervisor({
      logger: quiet,
      spawn: cluster.spawn,
      onDeath: () => deaths.push(1),
      // SIGTERM as the first worker listens (npm start's launcher saw it answer), before the start's own wait has seen it.
      onFork: (member) => void member.started.then(() => (stopping ??= supervisor.stop())),
    });
    await supervisor.start(generation(workers, 'a'));
    const stopped = await Promise.race([stopping?.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 2000))]);
    assert.equal(stopped, true, 'stop() resolved: every worker exited');
    assert.deepEqual([cluster.spawned.length, deaths.length, supervisor.members().length], [workers, 0, 0], 'none replaced, none left');
  });
}

for (const when of ['before it takes over', 'after it took over from an old one'] as const) {
  test(`a reload whose new worker dies ${when} goes back to the settings in force, and is no crash loop (issue 39, 2.2)`, async () => {
    const cluster = fakeCluster((worker) => {
      worker.listen();
      if (worker.env.TAG !== 'new') return;
      // A worker of the new settings dies as soon as it listens, or once the next new one starts
      // (the old one it replaced has retired by then), as one whose settings crash it would.
      if (when === 'before it takes over') setImmediate(() => worker.exit(1, null));
      else for (const earlier of cluster.tagged('new')) if (earlier !== worker) earlier.exit(1, null);
    });
    const deaths: number[] = [];
    let failed: number | undefined;
    const supervisor = createSupervisor({ logger: quiet, spawn: cluster.spawn, onDeath: () => deaths.push(1) });
    supervisor.onFailure((code) => (failed = code));
    const old = generation(2, 'old');
    await supervisor.start(old);
    for (let round = 0; round < 8; round++) {
      const inForce = await supervisor.reload(generation(2, 'new'));
      assert.equal(inForce?.overrides.TAG, 'old', `round ${round}: the settings in force stay the old ones`);
      await settle();
      assert.equal(cluster.tagged('new').length, 0, `round ${round}: no worker of the new settings is left`);
      assert.equal(cluster.tagged('old').length, 2, `round ${round}: two workers of the old settings serve`);
    }
    assert.equal(deaths.length, 0, 'the deaths were the reloads, not crashes');
    assert.equal(failed, undefined, 'the gateway never stopped');
    await supervisor.stop();
  });
}

test('a reload while a dead worker is being replaced leaves WORKERS workers, all of the new settings (issue 39, 2.4)', async () => {
  let holdNext = false;
  const held: FakeWorker[] = [];
  const cluster = fakeCluster((worker) => {
    if (holdNext) {
      holdNext = false;
      held.push(worker);
      return;
    }
    worker.listen();
  });
  const supervisor = createSupervisor({ logger: quiet, spawn: cluster.spawn });
  await supervisor.start(generation(2, 'old'));
  holdNext = true;
  cluster.spawned[0]?.exit(null, 'SIGKILL');
  while (held.length === 0) await settle();
  const reloaded = supervisor.reload(generation(2, 'new'));
  await settle();
  held[0]?.listen();
  await reloaded;
  await settle();
  assert.equal(cluster.tagged('new').length, 2, 'two workers of the new settings');
  assert.equal(cluster.tagged('old').length, 0, 'none of the old');
  assert.equal(supervisor.members().length, 2);
  await supervisor.stop();
});
