import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { createBatch } from './batch.js';

/** A `send` whose calls the test answers by hand, each call's items recorded. */
function manualSend() {
  const calls: { items: readonly number[]; answer(): void; fail(error: Error): void }[] = [];
  const send = (items: readonly number[]) =>
    new Promise<readonly number[]>((resolve, reject) => {
      calls.push({ items, answer: () => resolve(items.map((item) => item * 10)), fail: reject });
    });
  return { calls, send };
}

/** Runs the event loop's due callbacks: the mocked `setImmediate` and `setTimeout`, then the promises they settle. */
async function turn(t: TestContext, ms = 0): Promise<void> {
  // Promises settled by what ran before (an answer) first: they may schedule the next batch.
  for (let i = 0; i < 5; i++) await Promise.resolve();
  t.mock.timers.tick(ms);
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

function mocked(t: TestContext): { now: () => number; advance(ms: number): Promise<void> } {
  t.mock.timers.enable({ apis: ['setImmediate', 'setTimeout'] });
  let clock = 0;
  return {
    now: () => clock,
    advance: async (ms) => {
      clock += ms;
      await turn(t, ms);
    },
  };
}

test('without a hold, each event-loop turn sends its own batch, out or not', async (t) => {
  mocked(t);
  const { calls, send } = manualSend();
  const ask = createBatch({ send, windowMs: 0, maxItems: 100 });
  const first = [ask(1), ask(2)];
  await turn(t);
  const second = [ask(3)];
  await turn(t);
  assert.deepEqual(
    calls.map((call) => call.items),
    [[1, 2], [3]],
  );
  for (const call of calls) call.answer();
  assert.deepEqual(await Promise.all([...first, ...second]), [10, 20, 30]);
});

test('while a batch is out, the next waits for its answer and leaves as one batch', async (t) => {
  const clock = mocked(t);
  const { calls, send } = manualSend();
  const ask = createBatch({ send, windowMs: 0, maxItems: 100, holdWhileOutMs: 5, now: clock.now });
  const first = ask(1);
  await turn(t);
  assert.equal(calls.length, 1, 'idle, nothing is held: the first item leaves with its turn');
  // Two turns of arrivals while the first batch is out.
  const held = [ask(2), ask(3)];
  await turn(t);
  const later = ask(4);
  await clock.advance(1);
  assert.equal(calls.length, 1, 'held while the batch is out');
  calls[0]?.answer();
  await turn(t);
  assert.deepEqual(
    calls.map((call) => call.items),
    [[1], [2, 3, 4]],
  );
  calls[1]?.answer();
  assert.deepEqual(await Promise.all([first, ...held, later]), [10, 20, 30, 40]);
});

test('a failed batch releases the next as an answered one does', async (t) => {
  const clock = mocked(t);
  const { calls, send } = manualSend();
  const ask = createBatch({ send, windowMs: 0, maxItems: 100, holdWhileOutMs: 5, now: clock.now });
  const first = ask(1);
  await turn(t);
  const second = ask(2);
  await turn(t);
  calls[0]?.fail(new Error('connection reset'));
  await assert.rejects(first, /connection reset/);
  await turn(t);
  assert.deepEqual(calls[1]?.items, [2]);
  calls[1]?.answer();
  assert.equal(await second, 20);
});

test('the hold is bounded: a batch out for longer than it does not hold the next', async (t) => {
  const clock = mocked(t);
  const { calls, send } = manualSend();
  const ask = createBatch({ send, windowMs: 0, maxItems: 100, holdWhileOutMs: 5, now: clock.now });
  void ask(1).catch(() => {});
  await turn(t);
  await clock.advance(2);
  const second = ask(2);
  await turn(t);
  assert.equal(calls.length, 1, '2 ms out of 5: held');
  await clock.advance(3);
  assert.deepEqual(calls[1]?.items, [2], 'the hold ran out: sent while the first is still out');
  // Out for longer than the hold: the next leaves with its own turn.
  const third = ask(3);
  await turn(t);
  assert.deepEqual(calls[2]?.items, [3]);
  calls[1]?.answer();
  calls[2]?.answer();
  assert.deepEqual(await Promise.all([second, third]), [20, 30]);
});

test('a full batch leaves at once, even while another is out', async (t) => {
  const clock = mocked(t);
  const { calls, send } = manualSend();
  const ask = createBatch({ send, windowMs: 0, maxItems: 3, holdWhileOutMs: 5, now: clock.now });
  void ask(0);
  await turn(t);
  const full = [ask(1), ask(2), ask(3)];
  assert.deepEqual(calls[1]?.items, [1, 2, 3]);
  for (const call of calls) call.answer();
  assert.deepEqual(await Promise.all(full), [10, 20, 30]);
});
