import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CircuitOpenError, createCircuitBreaker } from './circuit-breaker.js';

test('opens after consecutive failures, refuses at once while open, then one probe closes or reopens it', async () => {
  let now = 1_000;
  let calls = 0;
  let healthy = false;
  const guarded = createCircuitBreaker({ failuresToOpen: 3, openMs: 500, now: () => now });
  const call = () =>
    guarded(async () => {
      calls += 1;
      if (!healthy) throw new Error('timeout');
      return 'ok';
    });

  for (let i = 0; i < 3; i++) await assert.rejects(call(), /timeout/);
  assert.equal(calls, 3);
  // Open: refused without a call.
  for (let i = 0; i < 10; i++) await assert.rejects(call(), CircuitOpenError);
  assert.equal(calls, 3);
  // After openMs, one probe; it fails: open again for another openMs.
  now += 500;
  await assert.rejects(call(), /timeout/);
  assert.equal(calls, 4);
  await assert.rejects(call(), CircuitOpenError);
  assert.equal(calls, 4);
  // The next probe succeeds: closed, every call goes through.
  now += 500;
  healthy = true;
  assert.equal(await call(), 'ok');
  for (let i = 0; i < 5; i++) assert.equal(await call(), 'ok');
  assert.equal(calls, 10);
});

test('a success resets the count: failures must be consecutive', async () => {
  let fail = true;
  let calls = 0;
  const guarded = createCircuitBreaker({ failuresToOpen: 3, openMs: 500, now: () => 0 });
  const call = () =>
    guarded(async () => {
      calls += 1;
      if (fail) throw new Error('timeout');
      return 'ok';
    });
  for (const outcome of [true, true, false, true, true, false, true, true]) {
    fail = outcome;
    await call().catch(() => {});
  }
  assert.equal(calls, 8, 'never opened');
});

test('while a probe is in flight, other calls are refused at once', async () => {
  let now = 0;
  const guarded = createCircuitBreaker({ failuresToOpen: 1, openMs: 100, now: () => now });
  await assert.rejects(guarded(async () => Promise.reject(new Error('down'))));
  now = 100;
  let release: () => void = () => {};
  const probe = guarded(() => new Promise<string>((resolve) => (release = () => resolve('up'))));
  await assert.rejects(
    guarded(async () => 'not asked'),
    CircuitOpenError,
  );
  release();
  assert.equal(await probe, 'up');
  assert.equal(await guarded(async () => 'closed'), 'closed');
});
