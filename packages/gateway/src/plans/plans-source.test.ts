import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { temporaryDir } from '@animal-store/testkit';
import { CHANNELS, type PlansReloadEvent } from '../events/index.js';
import { OFF_THREAD_BYTES, watchPlans } from './plans-source.js';

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
    const source = watchPlans(file);
    assert.equal(source.current().plans.free.minute, 60);
    writeLarge(file, 61, 3_000_000);
    const order: string[] = [];
    setImmediate(() => order.push('the loop turned'));
    const reloading = source.reloading();
    assert.ok(reloading !== undefined, 'a read under way');
    assert.equal(source.current().plans.free.minute, 60, 'the last content serves until the read is done');
    await reloading.then(() => order.push('read'));
    assert.deepEqual(order, ['the loop turned', 'read']);
    assert.equal(source.current().plans.free.minute, 61);
    assert.equal(source.reloading(), undefined);
    const loaded = events.at(-1);
    assert.deepEqual([loaded?.outcome, loaded?.plans?.changed, loaded?.version], ['loaded', ['free'], source.version()]);

    // An invalid large file is found invalid in the worker too: the content in force stays.
    const kept = source.version();
    writeLarge(file, 62, 3_000_000, { accounts: { lost: { plan: 'gold' } }, padding: 'x'.repeat(OFF_THREAD_BYTES) });
    await source.reloading();
    assert.equal(source.current().plans.free.minute, 61);
    const failed = events.at(-1);
    assert.deepEqual([failed?.outcome, failed?.version], ['failed', kept]);
    assert.match(String(failed?.error), /accounts\.lost\.plan: names no plan of the file \(gold\)/);
  } finally {
    unsubscribe(CHANNELS.plansReload, listen);
  }
});

test('a small change applies at once, on the loop', () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  writeFileSync(file, JSON.stringify(SHIPPED));
  const source = watchPlans(file);
  writeFileSync(file, JSON.stringify({ ...SHIPPED, anonymous: { minute: 31, day: 1000 } }));
  assert.equal(source.reloading(), undefined);
  assert.equal(source.current().anonymous.minute, 31);
});
