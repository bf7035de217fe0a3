import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { temporaryDir } from '@animal-store/testkit';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Identity } from '../auth/index.js';
import type { Policy } from '../ratelimit/index.js';
import { anonymousSubject } from '../ratelimit/limit-key.js';
import { MAX_CEILINGS, readPlansFile } from './plans-file.js';
import { createPlans } from './plans.js';

const SHIPPED = fileURLToPath(new URL('../../plans/plans.json', import.meta.url));
const identity = (plan: Identity['plan'], subject = 'acme', limits?: Identity['limits']): Identity => ({
  subject,
  keyId: 'k',
  plan,
  expiresAt: undefined,
  limits,
});
const limitsOf = (policy: { windows: readonly { name: string; limit: number }[] }) => Object.fromEntries(policy.windows.map((w) => [w.name, w.limit]));

test('the shipped plans are the interface’s', () => {
  const plans = createPlans(SHIPPED);
  assert.deepEqual(limitsOf(plans.forIdentity(identity('free'))), { minute: 60, day: 1000 });
  assert.deepEqual(limitsOf(plans.forIdentity(identity('pro'))), { minute: 300, day: 10000 });
  assert.deepEqual(limitsOf(plans.forIdentity(identity('business'))), { minute: 1000, day: 100000 });
  assert.ok(readPlansFile(SHIPPED).ban !== undefined);
});

test('enterprise: account override first, then the limits signed into the key, then the plan', () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  const base = JSON.parse(JSON.stringify(readPlansFile(SHIPPED))) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...base, accounts: { megacorp: { minute: 9000, day: 9000000 } } }));
  const plans = createPlans(file);
  assert.deepEqual(limitsOf(plans.forIdentity(identity('enterprise', 'megacorp', { minute: 1 }))), { minute: 9000, day: 9000000 });
  assert.deepEqual(limitsOf(plans.forIdentity(identity('enterprise', 'other', { minute: 7000 }))), { minute: 7000, day: 2000000 });
  assert.deepEqual(limitsOf(plans.forIdentity(identity('enterprise', 'other'))), { minute: 5000, day: 2000000 });
});

test('every window a plan makes says its kind: minute and day slide, a month is a calendar month', () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  const base = readPlansFile(SHIPPED);
  writeFileSync(
    file,
    JSON.stringify({ ...base, plans: { ...base.plans, free: { minute: 60, day: 1000, month: 20000 } }, operations: { createPet: { day: 10, month: 50 } } }),
  );
  const plans = createPlans(file);
  const kinds = (policy: Policy) => policy.windows.map((window) => [window.name, window.kind]);
  const free = plans.forKey(identity('free'), 'createPet');
  assert.deepEqual(kinds(free.policy), [
    ['minute', 'sliding'],
    ['day', 'sliding'],
    ['month', 'month'],
  ]);
  assert.deepEqual(
    free.layers.map((layer) => kinds(layer.policy)),
    [
      [
        ['day', 'sliding'],
        ['month', 'month'],
      ],
    ],
  );
  assert.deepEqual(kinds(plans.anonymous()), [
    ['minute', 'sliding'],
    ['day', 'sliding'],
  ]);
});

test('a per-plan ban policy overrides the default', () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  const base = readPlansFile(SHIPPED);
  writeFileSync(
    file,
    JSON.stringify({ ...base, plans: { ...base.plans, free: { minute: 60, day: 1000, ban: { strikes: 3, strikeWindowSeconds: 10, banSeconds: 60 } } } }),
  );
  const plans = createPlans(file);
  assert.deepEqual(plans.forIdentity(identity('free')).ban, { strikes: 3, strikeWindowMs: 10_000, banMs: 60_000 });
  assert.deepEqual(plans.forIdentity(identity('pro')).ban?.strikes, base.ban?.strikes);
});

test('an invalid plans file is refused with every problem named', () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  writeFileSync(file, JSON.stringify({ plans: { free: { minute: -1, day: 'x' } }, anonymous: {} }));
  assert.throws(
    () => readPlansFile(file),
    (error: Error) => /plans\.free\.minute/.test(error.message) && /plans\.free\.day/.test(error.message) && /anonymous\.minute/.test(error.message),
  );
});

test('plans by any name (issue 39, 3.1): none of the four required; at least one, each named as a header carries it', () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  const write = (plans: Record<string, unknown>) => writeFileSync(file, JSON.stringify({ plans, anonymous: { minute: 1, day: 1 } }));
  write({ startup: { minute: 7, day: 100 } });
  assert.deepEqual(Object.keys(readPlansFile(file).plans), ['startup']);
  write({});
  assert.throws(() => readPlansFile(file), /plans: holds no plan/);
  write({ 'gold\r\nx': { minute: 1, day: 1 } });
  assert.throws(() => readPlansFile(file), /plans/);
});

test('a key naming no plan of the file: `has` says so, and its terms refuse everything (the admin API reads keys of removed plans)', () => {
  const plans = createPlans(SHIPPED);
  assert.equal(plans.has('pro'), true);
  assert.equal(plans.has('startup'), false);
  assert.equal(plans.has('constructor'), false);
  assert.deepEqual(limitsOf(plans.forIdentity(identity('startup'))), { minute: 0, day: 0 });
});

test('anonymous clients: per IPv4 address, per IPv6 /64', () => {
  assert.equal(anonymousSubject('203.0.113.7'), 'ip:203.0.113.7');
  assert.equal(anonymousSubject('2001:db8:1:2:aaaa::1'), 'ip:2001:db8:1:2::/64');
  assert.equal(anonymousSubject('2001:db8:1:2:ffff:ffff:ffff:ffff'), 'ip:2001:db8:1:2::/64');
  assert.equal(anonymousSubject('2001:0db8:0001:0002::9'), 'ip:2001:db8:1:2::/64', 'the same /64 however it is written');
  assert.equal(anonymousSubject('::1'), 'ip:0:0:0:0::/64');
  assert.notEqual(anonymousSubject('2001:db8:1:3::1'), anonymousSubject('2001:db8:1:2::1'));
});

test('cost: units per operation on a plan, 1 for the rest; above the smallest window, refused', () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  const base = readPlansFile(SHIPPED);
  const withCost = (cost: Record<string, number>) =>
    writeFileSync(file, JSON.stringify({ ...base, plans: { ...base.plans, free: { minute: 60, day: 1000, cost } } }));
  withCost({ createPet: 5 });
  const plans = createPlans(file);
  assert.equal(plans.forKey(identity('free'), 'createPet').cost, 5);
  assert.equal(plans.forKey(identity('free'), 'listPets').cost, 1);
  assert.equal(plans.forKey(identity('pro'), 'createPet').cost, 1, 'a cost is per plan');
  assert.equal(plans.forKey(identity('free'), undefined).cost, 1);
  withCost({ createPet: 61, listPets: 0 });
  assert.throws(
    () => readPlansFile(file),
    (error: Error) =>
      /plans\.free\.cost\.createPet: costs 61 units, more than the plan's smallest window \(60\)/.test(error.message) && /cost\.listPets/.test(error.message),
  );
});

test('plans as data: months, ceilings, accounts on other plans, shadow; what the file names is checked', () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  const base = readPlansFile(SHIPPED);
  writeFileSync(
    file,
    JSON.stringify({
      ...base,
      plans: { ...base.plans, free: { minute: 60, day: 1000, month: 20000, cost: { createPet: 5 } }, trial: { minute: 2, day: 50, shadow: true } },
      operations: { createPet: { minute: 600 } },
      accounts: { moved: { plan: 'trial' }, quiet: { shadow: true, month: 7 } },
    }),
  );
  const plans = createPlans(file, { operations: new Set(['createPet', 'listPets']), shadowPlans: new Set(['pro']) });
  const free = plans.forKey(identity('free'), 'createPet');
  assert.deepEqual(limitsOf(free.policy), { minute: 60, day: 1000, month: 20000 });
  assert.deepEqual(
    [free.cost, free.shadow, free.layers.map((layer) => [layer.subject, limitsOf(layer.policy)])],
    [5, false, [['op:createPet', { minute: 600 }]]],
  );
  assert.deepEqual(plans.forKey(identity('free'), 'listPets').layers, [], 'no ceiling on listPets');
  const moved = plans.forKey(identity('pro', 'moved'), 'listPets');
  assert.deepEqual([moved.policy.name, limitsOf(moved.policy), moved.shadow], ['trial', { minute: 2, day: 50 }, true]);
  assert.equal(plans.forKey(identity('pro'), undefined).shadow, true, 'SHADOW_PLANS');
  const quiet = plans.forKey(identity('free', 'quiet'), undefined);
  assert.deepEqual([limitsOf(quiet.policy), quiet.shadow], [{ minute: 60, day: 1000, month: 7 }, true]);

  const problems = (context: Parameters<typeof readPlansFile>[1]) => {
    try {
      readPlansFile(file, context);
      return '';
    } catch (error) {
      return (error as Error).message;
    }
  };
  assert.match(problems({ operations: new Set(['listPets']) }), /plans\.free\.cost\.createPet: names no operation of the API document \(createPet\)/);
  assert.match(problems({ operations: new Set(['listPets']) }), /operations\.createPet: names no operation/);
  assert.match(problems({ noCeilings: 'needs a Redis that is not a Cluster' }), /operations\.createPet: needs a Redis that is not a Cluster/);
  writeFileSync(file, JSON.stringify({ ...base, accounts: { lost: { plan: 'gold' } } }));
  assert.match(problems({}), /accounts\.lost\.plan: names no plan of the file \(gold\)/);
});

test('an account on a plan named like an Object.prototype member is refused, at start and at reload', () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  const base = readPlansFile(SHIPPED);
  const withAccount = (plan: string) => writeFileSync(file, JSON.stringify({ ...base, accounts: { acme: { plan } } }));
  for (const name of ['constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty']) {
    withAccount(name);
    assert.throws(
      () => createPlans(file),
      (error: Error) => error.message.includes(`accounts.acme.plan: names no plan of the file (${name})`),
      `${name} at start`,
    );
    withAccount('pro');
    const plans = createPlans(file);
    assert.equal(plans.forKey(identity('free'), undefined).policy.name, 'pro');
    withAccount(name);
    const kept = plans.forKey(identity('free'), undefined);
    assert.deepEqual([kept.policy.name, limitsOf(kept.policy)], ['pro', { minute: 300, day: 10000 }], `${name} at reload: the last good plans stay`);
  }
});

test('keys, accounts and operations named like Object.prototype members get their plan, never an inherited one', () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  const base = readPlansFile(SHIPPED);
  writeFileSync(file, JSON.stringify({ ...base, plans: { ...base.plans, free: { minute: 60, day: 1000, cost: { createPet: 2 } } } }));
  const plans = createPlans(file);
  for (const name of ['constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty']) {
    const terms = plans.forKey(identity('free', name), name);
    assert.deepEqual(
      [terms.policy.name, limitsOf(terms.policy), terms.cost, terms.shadow, terms.layers],
      ['free', { minute: 60, day: 1000 }, 1, false, []],
      name,
    );
    assert.deepEqual(plans.costs(identity('free', name)), { createPet: 2 }, name);
  }
});

test("a cost above a window of an account's own is refused, naming the account, the operation and the window, at start and at reload", () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  const base = readPlansFile(SHIPPED);
  const write = (accounts: Record<string, object>) =>
    writeFileSync(file, JSON.stringify({ ...base, plans: { ...base.plans, free: { minute: 60, day: 1000, cost: { createPet: 5 } } }, accounts }));
  const tooSmall = { small: { plan: 'free', minute: 4 }, keyPlan: { month: 3 } };
  write(tooSmall);
  assert.throws(
    () => createPlans(file),
    (error: Error) =>
      error.message.includes("accounts.small.minute: 4 is less than createPet's cost on plan free (5 units)") &&
      error.message.includes("accounts.keyPlan.month: 3 is less than createPet's cost on plan free (5 units)"),
  );
  write({ small: { plan: 'free', minute: 5 }, blocked: { minute: 0 } });
  const plans = createPlans(file);
  assert.deepEqual(
    limitsOf(plans.forIdentity(identity('free', 'small'))),
    { minute: 5, day: 1000 },
    'a cost equal to the window fits; a window of 0 refuses all',
  );
  write(tooSmall);
  assert.deepEqual(limitsOf(plans.forIdentity(identity('free', 'small'))), { minute: 5, day: 1000 }, 'at reload the last good plans stay');
});

test('at most MAX_CEILINGS ceilings: GET /v1/usage reads and lists each', () => {
  const file = join(temporaryDir('plans-'), 'plans.json');
  const base = readPlansFile(SHIPPED);
  const withCeilings = (count: number) =>
    writeFileSync(file, JSON.stringify({ ...base, operations: Object.fromEntries(Array.from({ length: count }, (_, i) => [`op${i}`, { minute: 10 }])) }));
  withCeilings(MAX_CEILINGS);
  assert.equal(Object.keys(readPlansFile(file).operations).length, MAX_CEILINGS);
  withCeilings(MAX_CEILINGS + 1);
  assert.throws(() => readPlansFile(file), /operations: has more than 5000 ceilings/);
});
