import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason } from '@animal-store/testkit';
import { writePlansFile } from '../support/index.js';
import { startStack, type Stack } from './stack.js';

// Hostile suite, issue 29 point 3: customers whose account names are the gateway's own subjects
// (`op:<operationId>`, `ip:<address>`, `usage:<jti>`) against a gateway process with limits in
// Redis, in front of the core. Each has counters of its own: it spends neither the operation's
// ceiling for everyone, nor an address's anonymous limit, nor another key's usage limit.

describe('hostile: accounts named like the gateway’s own subjects', { skip: redisSkipReason() }, () => {
  let stack: Stack;
  let url: string;

  before(async () => {
    const plans = writePlansFile({ operations: { listPets: { minute: 50, day: 1000 } } });
    stack = await startStack({ gateways: 1, env: { PLANS_FILE: plans } });
    url = (stack.gateways[0] as Stack['gateways'][number]).url;
  });
  after(async () => {
    await stack?.close();
  });

  const get = (path: string, token?: string) => fetch(`${url}${path}`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });

  async function spend(times: number, path: string, token: string): Promise<void> {
    for (let i = 0; i < times; i++) {
      const res = await get(path, token);
      await res.arrayBuffer();
      assert.notEqual(res.status, 429, `the attacker's own plan admits request ${i + 1}`);
    }
  }

  test('an account op:listPets leaves the listPets ceiling whole for everyone', async () => {
    const attacker = (await stack.keyring.issue({ plan: 'pro', sub: 'op:listPets' })).token;
    await spend(60, '/v1/pets/1', attacker);
    const victim = (await stack.keyring.issue({ plan: 'pro', sub: 'victim-ceiling' })).token;
    const seen: number[] = [];
    for (let i = 0; i < 51; i++) {
      const res = await get('/v1/pets?limit=1', victim);
      seen.push(res.status);
      await res.arrayBuffer();
    }
    assert.equal(seen.filter((status) => status === 200).length, 50, 'the whole ceiling');
    assert.equal(seen.at(-1), 429, 'and the ceiling still holds');
  });

  test('an account ip:127.0.0.1 leaves that address’s anonymous limit whole', async () => {
    const attacker = (await stack.keyring.issue({ plan: 'pro', sub: 'ip:127.0.0.1' })).token;
    await spend(40, '/v1/pets/1', attacker);
    const keyless = await get('/v1/pets');
    await keyless.arrayBuffer();
    assert.equal(keyless.status, 401);
    assert.equal(keyless.headers.get('x-ratelimit-remaining'), '29');
  });

  test('an account usage:<jti> leaves that key’s usage limit whole', async () => {
    const victim = await stack.keyring.issue({ plan: 'pro', sub: 'victim-usage' });
    const attacker = (await stack.keyring.issue({ plan: 'pro', sub: `usage:${victim.record.jti}` })).token;
    await spend(70, '/v1/pets/1', attacker);
    const usage = await get('/v1/usage', victim.token);
    await usage.arrayBuffer();
    assert.equal(usage.status, 200);
  });
});
