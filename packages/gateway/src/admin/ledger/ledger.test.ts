import assert from 'node:assert/strict';
import { channel } from 'node:diagnostics_channel';
import { test } from 'node:test';
import type { Identity } from '../../auth/index.js';
import { CHANNELS, type LimitDecisionEvent, type RequestRecord } from '../../events/index.js';
import { createCalendar } from '../../ratelimit/index.js';
import { InvalidCursorError, type LedgerNotes } from './ledger.js';
import { recordLedger } from './ledger-recorder.js';
import { createMemoryLedger } from './memory-ledger.js';

const decisions = channel(CHANNELS.limitDecision);
const identity = (subject: string, keyId: string, plan: Identity['plan'] = 'pro'): Identity => ({
  subject,
  keyId,
  plan,
  expiresAt: undefined,
  limits: undefined,
});

/** Publishes a decision of `source`'s gateway, as `applyDecision` does. */
function decide(source: object, key: Identity | undefined, decision: LimitDecisionEvent['decision'] = 'allowed', plan = key?.plan ?? 'anonymous'): void {
  const request = { source } as RequestRecord;
  decisions.publish({ request, plan, identity: key, decision, startedAt: 0, durationMs: 0 } satisfies LimitDecisionEvent);
}

test("a key's first decision of the day is a sighting, once a day; shadow refusals count by plan", async () => {
  const source = {};
  let now = Date.UTC(2026, 10, 28, 23, 50);
  const ledger = createMemoryLedger();
  const stop = recordLedger({ ledger, calendar: createCalendar(), now: () => now, source });
  try {
    const acme = identity('acme', 'k1');
    for (let i = 0; i < 3; i++) decide(source, acme);
    decide(source, identity('acme', 'k2', 'free'));
    decide(source, acme, 'shadow_limited', 'trial');
    decide(source, acme, 'shadow_limited', 'trial');
    decide({}, identity('other-gateway', 'k9'));
    decide(source, undefined, 'limited');
    const page = await ledger.page('2026-11-28', { cursor: undefined, limit: 10 });
    assert.deepEqual(
      page.accounts.map((account) => [account.account, account.lastKey, account.keys.map((key) => key.keyId).sort(), account.shadowRefusals]),
      [['acme', 'k2', ['k1', 'k2'], { trial: 2 }]],
      "another gateway's decisions and an address's are not this ledger's",
    );
    // Past midnight: the same key is seen again, on the new day, under its date.
    now = Date.UTC(2026, 10, 29, 0, 5);
    decide(source, acme);
    assert.equal((await ledger.account('2026-11-29', 'acme'))?.lastKey, 'k1');
    assert.deepEqual((await ledger.account('2026-11-29', 'acme'))?.shadowRefusals, {});
    assert.equal((await ledger.account('2026-11-28', 'acme'))?.lastKey, 'k2', 'yesterday stays as it was');
    assert.equal(await ledger.accountOfKey('k2'), 'acme');
    assert.deepEqual([...(await ledger.seenOn(['2026-11-29', '2026-11-28']))], [['acme', '2026-11-29']]);
  } finally {
    stop();
  }
});

test('pages in account order, a cursor continues, a search narrows, a stranger cursor is refused', async () => {
  const ledger = createMemoryLedger();
  const sightings = ['delta', 'alpha', 'charlie', 'bravo', 'echo'].map((account, i) => ({
    account,
    keyId: `k${i}`,
    plan: 'free' as const,
    seen: '2026-11-28',
  }));
  await ledger.write({ day: '2026-11-28', sightings, shadowRefusals: [] });
  const first = await ledger.page('2026-11-28', { cursor: undefined, limit: 2 });
  assert.deepEqual(
    first.accounts.map((account) => account.account),
    ['alpha', 'bravo'],
  );
  const second = await ledger.page('2026-11-28', { cursor: first.next, limit: 2 });
  const third = await ledger.page('2026-11-28', { cursor: second.next, limit: 2 });
  assert.deepEqual(
    [...second.accounts, ...third.accounts].map((account) => account.account),
    ['charlie', 'delta', 'echo'],
  );
  assert.equal(third.next, undefined);
  assert.deepEqual(
    (await ledger.page('2026-11-28', { cursor: undefined, limit: 10, search: 'ha' })).accounts.map((account) => account.account),
    ['alpha', 'charlie'],
  );
  await assert.rejects(ledger.page('2026-11-28', { cursor: 'r:0:1', limit: 2 }), InvalidCursorError);
  assert.deepEqual((await ledger.page('2026-11-27', { cursor: undefined, limit: 2 })).accounts, []);
});

/** Resolves once `check` is true, asking every 5 ms (the recorder's timers are real ones). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    assert.ok(Date.now() < deadline, 'in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('a ledger elsewhere gets batches; a batch that fails is noted again', async () => {
  const source = {};
  const written: LedgerNotes[] = [];
  let attempts = 0;
  const ledger = {
    async write(notes: LedgerNotes) {
      attempts += 1;
      if (attempts === 1) throw new Error('Redis did not answer');
      written.push(notes);
    },
  };
  const stop = recordLedger({ ledger, calendar: createCalendar(), now: () => Date.UTC(2026, 10, 28, 12), source, intervalMs: 5 });
  try {
    const acme = identity('acme', 'k1');
    decide(source, acme);
    decide(source, acme, 'shadow_limited', 'trial');
    await until(() => attempts === 1);
    // The sighting is made again by the key's next decision; the refusal waited for the next batch.
    decide(source, acme, 'shadow_limited', 'trial');
    await until(() => written.length === 1);
    assert.deepEqual(written, [
      {
        day: '2026-11-28',
        sightings: [{ account: 'acme', keyId: 'k1', plan: 'pro', limits: undefined, expiresAt: undefined, seen: '2026-11-28' }],
        shadowRefusals: [{ account: 'acme', plan: 'trial', count: 2 }],
      },
    ]);
  } finally {
    stop();
  }
});
