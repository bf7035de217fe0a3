import assert from 'node:assert/strict';
import type { Worker } from 'node:cluster';
import { after, describe, test } from 'node:test';
import { createMemoryLimiter, minuteAndDay, type LimitRequest, type Policy } from '../src/ratelimit/index.js';
import { MESSAGE } from '../src/ipc/index.js';
import { hostLimits, type LimitsHost } from '../src/ratelimit/primary/index.js';
import { forkLimitsWorkers, LIMITS, stopLimitsWorkers, type LimitsWorker } from './support/limits-workers.js';
import { outcomeOf, type Outcome } from './support/primary-limits-worker.js';

// Issue 30, point 2: the workers of one gateway share its in-process limits through the primary.
// These run real `node:cluster` workers over real IPC, each with the worker-side limiter itself
// (no HTTP): what the primary decides for checks arriving at once from several workers.

const FREE = minuteAndDay('free', 60, 1000);
const BANNING = minuteAndDay('banning', 5, 1000, { strikes: 3, strikeWindowMs: 60_000, banMs: 60_000 });
const CEILING: Policy = { name: 'createPet', windows: [{ name: 'minute', limit: 7, windowMs: 60_000, buckets: 60 }], ban: undefined };

const check = (subject: string, policy: Policy, more: Partial<LimitRequest> = {}): LimitRequest => ({ subject, keyId: `key-${subject}`, policy, ...more });
const many = (n: number, request: LimitRequest): LimitRequest[] => Array.from({ length: n }, () => request);
const tally = (outcomes: readonly Outcome[][]) => {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes.flat()) counts[outcome.kind] = (counts[outcome.kind] ?? 0) + 1;
  return counts;
};

/** Counts, in the primary, the check batches a worker sends and the policy definitions in them. */
function watchBatches(worker: Worker) {
  const seen = { batches: 0, checks: 0, definitions: 0 };
  worker.on('message', (message: { type?: string; checks?: unknown[]; policies?: unknown[] }) => {
    if (message.type !== MESSAGE.limitsCheck) return;
    seen.batches += 1;
    seen.checks += message.checks?.length ?? 0;
    seen.definitions += (message.policies?.length ?? 0) / 2;
  });
  return seen;
}

for (const serialization of ['json', 'advanced'] as const) {
  describe(`limits in the primary, two cluster workers, serialization ${serialization}`, () => {
    let host: LimitsHost;
    let workers: LimitsWorker[] = [];
    after(async () => {
      await stopLimitsWorkers(workers);
    });

    test('2 workers × 1,500 checks at once on one subject, 60 a minute: exactly 60 admitted', async () => {
      host = hostLimits(LIMITS);
      workers = await forkLimitsWorkers(2, host, { serialization });
      const request = check('burst', FREE);
      const outcomes = await Promise.all(workers.map((w) => w.run<Outcome[]>({ kind: 'concurrent', requests: many(1500, request) })));
      assert.deepEqual(tally(outcomes), { allowed: 60, limited: 2940 });
    });

    test('costs: 2 × 1,500 checks costing 5 units of 60: exactly 12 admitted', async () => {
      const request = check('costly', FREE, { cost: 5 });
      const outcomes = await Promise.all(workers.map((w) => w.run<Outcome[]>({ kind: 'concurrent', requests: many(1500, request) })));
      assert.deepEqual(tally(outcomes), { allowed: 12, limited: 2988 });
      const [after] = await (workers[0] as LimitsWorker).run<Outcome[]>({ kind: 'concurrent', requests: [{ ...request, peek: true }] });
      assert.deepEqual(after?.remaining, [0, 940], 'units charged, none by a refusal');
    });

    test('a ban after 3 strikes, the strikes counted across workers: 5 admitted, 2 limited, then banned', async () => {
      const request = check('striker', BANNING);
      const outcomes = await Promise.all(workers.map((w) => w.run<Outcome[]>({ kind: 'concurrent', requests: many(50, request) })));
      assert.deepEqual(tally(outcomes), { allowed: 5, limited: 2, banned: 93 });
    });

    test('a ceiling shared by three accounts on both workers: exactly its 7 admitted', async () => {
      const layers = [{ subject: 'op:createPet', policy: CEILING }];
      const requests = ['a', 'b', 'c'].flatMap((account) => many(100, check(`ceiling-${account}`, FREE, { layers })));
      const outcomes = await Promise.all(workers.map((w) => w.run<Outcome[]>({ kind: 'concurrent', requests })));
      assert.deepEqual(tally(outcomes), { allowed: 7, limited: 593 });
      assert.ok(outcomes.flat().every((o) => o.kind === 'allowed' || o.binding === 'createPet.minute'));
    });
  });
}

describe('limits in the primary: batched as decided one by one', () => {
  let workers: LimitsWorker[] = [];
  after(async () => {
    await stopLimitsWorkers(workers);
  });

  test('the same requests in one batch, one by one, and on a memory limiter: the same decisions', async () => {
    const host = hostLimits(LIMITS);
    workers = await forkLimitsWorkers(2, host);
    const [batched, oneByOne] = workers as [LimitsWorker, LimitsWorker];
    const seen = watchBatches(batched.worker);
    // Costs, shadow, a ceiling, peeks and a ban, on subjects of their own for each run.
    const script = (tag: string): LimitRequest[] => {
      const layers = [{ subject: `op:${tag}`, policy: CEILING }];
      return [
        ...many(3, check(`${tag}-a`, BANNING, { cost: 2 })),
        check(`${tag}-a`, BANNING, { peek: true }),
        ...many(4, check(`${tag}-a`, BANNING)),
        check(`${tag}-a`, BANNING, { peek: true }),
        ...many(7, check(`${tag}-shadow`, BANNING, { shadow: true, layers })),
        ...many(5, check(`${tag}-b`, FREE, { layers })),
        check(`${tag}-b`, FREE, { layers, peek: true }),
      ];
    };
    const reference = createMemoryLimiter();
    const expected: Outcome[] = [];
    for (const request of script('memory')) expected.push(outcomeOf(await reference.check(request)));
    const inOneBatch = await batched.run<Outcome[]>({ kind: 'concurrent', requests: script('batched') });
    const sequential = await oneByOne.run<Outcome[]>({ kind: 'sequential', requests: script('sequential') });
    assert.deepEqual(inOneBatch, expected);
    assert.deepEqual(sequential, expected);
    assert.deepEqual(new Set(expected.map((o) => o.kind)), new Set(['allowed', 'limited', 'banned']), 'the script reaches every kind');
    assert.ok(expected.some((o) => o.shadow));
    assert.deepEqual({ batches: seen.batches, checks: seen.checks }, { batches: 1, checks: expected.length }, 'the concurrent checks left in one batch');
    assert.equal(seen.definitions, 3, 'each policy sent once');
  });
});

describe('limits in the primary: its counters, its policies, its channel', () => {
  const started: LimitsWorker[] = [];
  after(async () => {
    await stopLimitsWorkers(started);
  });

  test('the counters outlive a worker: one killed after 30 checks, a new one finds 30 left', async () => {
    const host = hostLimits(LIMITS);
    const [first] = await forkLimitsWorkers(1, host);
    started.push(first as LimitsWorker);
    await first?.run({ kind: 'concurrent', requests: many(30, check('survivor', FREE)) });
    first?.worker.process.kill('SIGKILL');
    await first?.exited;
    const [second] = await forkLimitsWorkers(1, host);
    started.push(second as LimitsWorker);
    const [peeked] = await (second as LimitsWorker).run<Outcome[]>({ kind: 'concurrent', requests: [check('survivor', FREE, { peek: true })] });
    assert.deepEqual(peeked?.remaining, [30, 970]);
  });

  test('a reload keeps the counters, unless it changes what shapes the limiter', async () => {
    const host = hostLimits(LIMITS);
    const [worker] = (await forkLimitsWorkers(1, host)) as [LimitsWorker];
    started.push(worker);
    const peek = async () => (await worker.run<Outcome[]>({ kind: 'concurrent', requests: [check('reloaded', FREE, { peek: true })] }))[0]?.remaining;
    await worker.run({ kind: 'concurrent', requests: many(30, check('reloaded', FREE)) });
    const unused = { ...LIMITS, denyCacheMs: 500, shadowPlans: new Set(['pro']) };
    host.reload(unused);
    assert.deepEqual(await peek(), [30, 970], 'settings the primary does not use: kept');
    host.reload({ ...LIMITS, maxAddresses: 5000 });
    assert.deepEqual(await peek(), [60, 1000], 'another RATE_LIMIT_MAX_ADDRESSES: started over');
  });

  test('a policy the primary forgot is sent again, and the counters carry on', async () => {
    const host = hostLimits(LIMITS, { maxPolicies: 2 });
    const [worker] = (await forkLimitsWorkers(1, host)) as [LimitsWorker];
    started.push(worker);
    const seen = watchBatches(worker.worker);
    const others = [2, 3, 4].map((n) => check(`other-${n}`, minuteAndDay(`plan-${n}`, 10 * n, 1000)));
    const outcomes: Outcome[] = [];
    for (const requests of [[check('kept', FREE)], others, [check('kept', FREE)]])
      outcomes.push(...(await worker.run<Outcome[]>({ kind: 'sequential', requests })));
    assert.deepEqual(outcomes.at(-1)?.remaining, [58, 998]);
    assert.equal(seen.definitions, 5, "free's definition sent twice: once first, once when the primary had forgotten it");
  });

  test('the local share is one share for the whole gateway: 2 × 100 checks at half of 60 admit exactly 30', async () => {
    const host = hostLimits(LIMITS);
    const workers = await forkLimitsWorkers(2, host);
    started.push(...workers);
    const outcomes = await Promise.all(
      workers.map((w) => w.run<Outcome[]>({ kind: 'concurrent', engine: 'local', requests: many(100, check('shared-share', FREE)) })),
    );
    assert.deepEqual(tally(outcomes), { allowed: 30, limited: 170 });
  });

  test('a primary that cannot answer: the check in flight and the next are refused as unavailable once the channel closes', async () => {
    const [worker] = (await forkLimitsWorkers(1, hostLimits(LIMITS), { attach: false })) as [LimitsWorker];
    started.push(worker);
    assert.equal(await worker.run({ kind: 'unanswered', request: check('nobody', FREE) }), 'asked');
    worker.worker.disconnect();
    assert.equal(await worker.exited, 0, 'both checks refused with RateLimitUnavailableError, nothing thrown elsewhere');
  });
});
