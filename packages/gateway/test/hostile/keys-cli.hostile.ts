import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason } from '@animal-store/testkit';
import { claimsFor, CONTROL_CHARACTER, echoBaits, forgedKeys, keysCli } from '../support/index.js';
import { startStack, type Stack } from './stack.js';

// Hostile suite, issue 29 points 5 and 6: the keys CLI attacked as the attack run did. Forged
// tokens carrying the victim's key id (another keyring, alg none, HS256 with the public key,
// another issuer or audience) and echo baits (a key split at its last dot, an id of terminal
// escapes) are given to `keys revoke` on a real keyring with Redis, as an operator runs it; then a
// real gateway process is asked: the victim's key still works. A genuine revocation, last, shows
// the same setup does revoke.

async function statusOf(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

describe('hostile keys CLI: forged and echoing revocations', { skip: redisSkipReason() }, () => {
  let stack: Stack;
  let cliEnv: Record<string, string>;
  before(async () => {
    stack = await startStack({ gateways: 1 });
    cliEnv = { KEYS_DIR: stack.keyring.dir, REDIS_URL: stack.redis.url };
  });
  after(async () => {
    await stack?.close();
  });

  test("no forged token and no bait revokes the victim's key, and none is echoed", async () => {
    const [gateway] = stack.gateways;
    assert.ok(gateway);
    const victim = await stack.keyring.issue({ plan: 'pro', sub: 'victim' });
    assert.equal(await statusOf(gateway.url, victim.token), 200);
    const forged = await forgedKeys(stack.keyring, claimsFor({ sub: 'victim', jti: victim.record.jti }));
    const attacks = [
      ...Object.entries(forged).map(([name, token]) => ({ name, args: [token], secret: victim.record.jti })),
      ...echoBaits(victim.token).map(({ args, secret }) => ({ name: `bait ${JSON.stringify(args).slice(0, 40)}`, args, secret })),
    ];
    const started = performance.now();
    // One at a time, as an attacker at one terminal: each CLI run is a process of its own.
    for (const { name, args, secret } of attacks) {
      const result = await keysCli(cliEnv, 'revoke', ...args);
      const printed = result.stdout + result.stderr;
      assert.notEqual(result.status, 0, `${name}: ${printed}`);
      assert.equal(printed.includes(secret), false, `${name} echoed what it must not:\n${printed}`);
      assert.doesNotMatch(printed, CONTROL_CHARACTER, name);
    }
    console.log(`# ${attacks.length} attacks on keys revoke in ${Math.round(performance.now() - started)} ms`);
    const file = JSON.parse(readFileSync(stack.keyring.files.revoked, 'utf8')) as { revoked: Record<string, string> };
    assert.deepEqual(file.revoked, {}, 'nothing in the deny-list file');
    assert.equal(await statusOf(gateway.url, victim.token), 200, "the victim's key still works");

    const genuine = await keysCli(cliEnv, 'revoke', victim.token);
    assert.equal(genuine.status, 0, genuine.stderr);
    assert.equal(await statusOf(gateway.url, victim.token), 401, 'the key itself does revoke it');
  });
});
