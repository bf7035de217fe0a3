import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { closeSync, ftruncateSync, futimesSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { temporaryDir } from '@animal-store/testkit';
import { CHANNELS, type PlansReloadEvent } from '../events/index.js';
import { MAX_WAIT_MS, OFF_THREAD_BYTES, watchPlans } from './plans-source.js';
import type { SettleClock } from './whole-change.js';

/**
 * A clock the test moves, `aheadMs` past the wall clock (files written now look that old), and its
 * timers. `live`: it moves with the wall clock too (files written later look as old).
 */
function manualClock(aheadMs = 0, live = false): SettleClock & { advance(ms: number): Promise<void> } {
  let now = Date.now() + aheadMs;
  let sleepers: { until: number; wake: () => void }[] = [];
  return {
    now: () => (live ? Date.now() + aheadMs : now),
    sleep: (ms) => new Promise((wake) => sleepers.push({ until: now + ms, wake })),
    async advance(ms) {
      now += ms;
      const due = sleepers.filter((sleeper) => sleeper.until <= now);
      sleepers = sleepers.filter((sleeper) => sleeper.until > now);
      for (const sleeper of due) sleeper.wake();
      // What the woken reads do, done: the file is looked at, read, and the outcome applied.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

/** The `plansReload` events published while `body` runs. */
async function reloadsDuring(body: (events: PlansReloadEvent[]) => Promise<void> | void): Promise<PlansReloadEvent[]> {
  const events: PlansReloadEvent[] = [];
  const listen = (event: unknown) => events.push(event as PlansReloadEvent);
  subscribe(CHANNELS.plansReload, listen);
  try {
    await body(events);
  } finally {
    unsubscribe(CHANNELS.plansReload, listen);
  }
  return events;
}

const SHIPPED = JSON.parse(readFileSync(fileURLToPath(new URL('../../plans/plans.json', import.meta.url)), 'utf8')) as Record<string, unknown>;

/** A plans file of about `bytes` (accounts make the size), free's minute at `freeMinute`. */
function writeLarge(file: string, freeMinute: number, bytes: number, extra: Record<string, unknown> = {}) {
  const accounts: Record<string, object> = {};
  // An account is about 60 bytes as JSON.
  for (let i = 0; i < bytes / 60; i++) accounts[`account-${i}`] = { plan: 'pro', minute: 100 + i, day: 100000 };
  const plans = { ...(SHIPPED.plans as object), free: { minute: freeMinute, day: 1000 } };
  writeFileSync(file, JSON.stringify({ ...SHIPPED, plans, accounts, ...extra }));
}

test('a large changed plans file is read off the event loop: the loop turns meanwhile, and the change applies once read', async () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  const events: PlansReloadEvent[] = [];
  const listen = (event: unknown) => events.push(event as PlansReloadEvent);
  subscribe(CHANNELS.plansReload, listen);
  try {
    writeLarge(file, 60, 3_000_000);
    // Files written 5 s ago, as far as the settle is concerned: read as soon as seen.
    const source = watchPlans(file, { clock: manualClock(5_000, true) });
    assert.equal(source.current().plans.free?.minute, 60);
    writeLarge(file, 61, 3_000_000);
    const order: string[] = [];
    setImmediate(() => order.push('the loop turned'));
    const reloading = source.reloading();
    assert.ok(reloading !== undefined, 'a read under way');
    assert.equal(source.current().plans.free?.minute, 60, 'the last content serves until the read is done');
    await reloading.then(() => order.push('read'));
    assert.deepEqual(order, ['the loop turned', 'read']);
    assert.equal(source.current().plans.free?.minute, 61);
    assert.equal(source.reloading(), undefined);
    const loaded = events.at(-1);
    assert.deepEqual([loaded?.outcome, loaded?.plans?.changed, loaded?.version], ['loaded', ['free'], source.version()]);

    // An invalid large file is found invalid in the worker too: the content in force stays.
    const kept = source.version();
    writeLarge(file, 62, 3_000_000, { accounts: { lost: { plan: 'gold' } }, padding: 'x'.repeat(OFF_THREAD_BYTES) });
    await source.reloading();
    assert.equal(source.current().plans.free?.minute, 61);
    const failed = events.at(-1);
    assert.deepEqual([failed?.outcome, failed?.version], ['failed', kept]);
    assert.match(String(failed?.error), /accounts\.lost\.plan: names no plan of the file \(gold\)/);
  } finally {
    unsubscribe(CHANNELS.plansReload, listen);
  }
});

test('a small change applies once it stood still: at once when its last write is long past, else after the settle', async () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  writeFileSync(file, JSON.stringify(SHIPPED));
  const late = manualClock(5_000, true);
  const source = watchPlans(file, { clock: late, settleMs: 100 });
  writeFileSync(file, JSON.stringify({ ...SHIPPED, anonymous: { minute: 31, day: 1000 } }));
  assert.equal(source.reloading(), undefined);
  assert.equal(source.current().anonymous.minute, 31);

  const clock = manualClock();
  const fresh = watchPlans(file, { clock, settleMs: 100 });
  writeFileSync(file, JSON.stringify({ ...SHIPPED, anonymous: { minute: 32, day: 1000 } }));
  const reloading = fresh.reloading();
  assert.ok(reloading !== undefined, 'written just now: waited for');
  assert.equal(fresh.current().anonymous.minute, 31);
  await clock.advance(0);
  await clock.advance(99);
  assert.equal(fresh.current().anonymous.minute, 31, 'not yet 100 ms still');
  await clock.advance(1);
  await reloading;
  assert.equal(fresh.current().anonymous.minute, 32);
});

// Issue 39, 2.9: a plans file written in place in parts is torn in between, and a torn file may
// parse and validate. Here the writer writes the new content over the old in 3 parts, 40 ms
// apart, then truncates it to its length: between the second part and the third the file says
// 5000 for an account going from 1000 to 50 (the new "50" over the old "1000" leaves "5000").
test('a torn write in place is never applied: the account is at 1000 until it is at 50, and nothing else is reported', async () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  const content = (minute: number) => JSON.stringify({ ...SHIPPED, accounts: { acme: { minute, day: 100000 }, zeta: { plan: 'pro' } } });
  const [before, after] = [content(1000), content(50)];
  writeFileSync(file, before);
  const clock = manualClock();
  const source = watchPlans(file, { clock, settleMs: 100 });
  const minute = () => source.current().accounts.acme?.minute;
  const changed = before.indexOf('"acme":{"minute":1000') + '"acme":{"minute":'.length;
  const parts = [0, Math.floor(changed / 2), changed + 2, after.length];
  const seen: (number | undefined)[] = [];
  const written = clock.now();
  const events = await reloadsDuring(async () => {
    const fd = openSync(file, 'r+');
    try {
      for (let i = 0; i < 3; i++) {
        writeSync(fd, Buffer.from(after.slice(parts[i], parts[i + 1])), 0, (parts[i + 1] as number) - (parts[i] as number), parts[i]);
        // Its last write 40 ms after the one before, as the writer's pauses make it (whatever the
        // file system's mtime granularity).
        futimesSync(fd, new Date(), new Date(written + 40 * (i + 1)));
        if (i === 1) assert.equal((JSON.parse(readFileSync(file, 'utf8')) as { accounts: { acme: { minute: number } } }).accounts.acme.minute, 5000, 'torn');
        seen.push(minute());
        await clock.advance(40);
        seen.push(minute());
      }
      ftruncateSync(fd, after.length);
      futimesSync(fd, new Date(), new Date(written + 160));
    } finally {
      closeSync(fd);
    }
    seen.push(minute());
    await clock.advance(40);
    seen.push(minute());
    // The file still from here on: a few settles at most until the change is taken.
    for (let i = 0; i < 10 && source.reloading() !== undefined; i++) await clock.advance(50);
    assert.equal(source.reloading(), undefined, 'taken');
    seen.push(minute());
  });
  assert.deepEqual(
    seen.filter((value, i) => value !== seen[i - 1]),
    [1000, 50],
    `in force along the way: ${seen.join(', ')}`,
  );
  assert.deepEqual(
    events.map((event) => event.outcome),
    ['loaded'],
  );
});

test('a file that never stands still holds no request past MAX_WAIT_MS: the plans in force decide meanwhile', async () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  writeFileSync(file, JSON.stringify(SHIPPED));
  const clock = manualClock();
  const source = watchPlans(file, { clock, settleMs: 100 });
  let minute = 31;
  const rewrite = () => writeFileSync(file, JSON.stringify({ ...SHIPPED, anonymous: { minute: minute++, day: 1000 } }));
  rewrite();
  const reloading = source.reloading();
  assert.ok(reloading !== undefined);
  await clock.advance(0);
  // Changed again before each settle ends.
  for (let waited = 0; waited < MAX_WAIT_MS; waited += 50) {
    rewrite();
    await clock.advance(50);
  }
  await reloading;
  assert.equal(source.reloading(), undefined, 'requests no longer wait');
  assert.equal(source.current().anonymous.minute, 30, 'the plans in force');
  // Once it stands still, it is taken.
  for (let i = 0; i < 10 && source.current().anonymous.minute === 30; i++) await clock.advance(100);
  assert.equal(source.current().anonymous.minute, minute - 1);
});
