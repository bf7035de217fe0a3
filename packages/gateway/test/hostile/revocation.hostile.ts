import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { redisSkipReason, waitForReady } from '@animal-store/testkit';
import { keysCli, revokeThenKill } from '../support/index.js';
import { startStack, type Stack } from './stack.js';

// Hostile suite: a revoked key must stay refused whatever happens to Redis right after. Two
// gateway processes on one Redis; the revocation is made by the keys CLI, as an operator makes it.

async function statusOf(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

/** Issues two keys of one account, uses both on every gateway, and returns them with the first one's jti. */
async function twoKeys(stack: Stack, sub: string): Promise<{ revoked: string; other: string; jti: string }> {
  const first = await stack.keyring.issue({ plan: 'pro', sub });
  const other = (await stack.keyring.issue({ plan: 'pro', sub })).token;
  for (const gateway of stack.gateways) {
    assert.equal(await statusOf(gateway.url, first.token), 200);
    assert.equal(await statusOf(gateway.url, other), 200);
  }
  return { revoked: first.token, other, jti: first.record.jti };
}

for (const revocationsFile of [true, false]) {
  describe(
    `hostile revocation, two gateway processes (${revocationsFile ? 'REVOCATIONS_FILE beside Redis' : 'Redis the only deny-list'})`,
    { skip: redisSkipReason() },
    () => {
      let stack: Stack;
      let cliEnv: Record<string, string>;

      before(async () => {
        stack = await startStack({ gateways: 2, revocationsFile });
        cliEnv = { KEYS_DIR: stack.keyring.dir, REDIS_URL: stack.redis.url };
      });
      after(async () => {
        await stack?.close();
      });

      test('keys revoke, then Redis SIGKILLed within 2 ms of the CLI exiting: 401 on both instances while Redis is dead', async () => {
        const { revoked, other, jti } = await twoKeys(stack, `kill-${revocationsFile}`);
        const { status, killedAfterMs, stderr } = await revokeThenKill(cliEnv, jti, stack.redis);
        try {
          assert.equal(status, 0, stderr);
          assert.ok(killedAfterMs < 2, `Redis was killed ${killedAfterMs} ms after the CLI exited`);
          for (const gateway of stack.gateways) {
            assert.equal(await statusOf(gateway.url, revoked), 401, 'the revoked key');
            assert.equal(await statusOf(gateway.url, other), 200, 'another key of the account (local limiter)');
          }
        } finally {
          await stack.redis.restart();
          for (const gateway of stack.gateways) await waitForReady(gateway.url, 15_000);
        }
      });

      if (revocationsFile) {
        test('keys revoke, then Redis restarted empty: still 401 on both instances, the other key still 200', async () => {
          const { revoked, other, jti } = await twoKeys(stack, 'restart');
          const cli = await keysCli(cliEnv, 'revoke', jti);
          assert.equal(cli.status, 0, cli.stderr);
          for (const gateway of stack.gateways) assert.equal(await statusOf(gateway.url, revoked), 401);
          await stack.redis.stop('SIGKILL'); // no persistence: it comes back without the deny-list
          await stack.redis.restart();
          for (const gateway of stack.gateways) await waitForReady(gateway.url, 15_000);
          for (const gateway of stack.gateways) {
            assert.equal(await statusOf(gateway.url, revoked), 401, 'the revoked key, after Redis lost its data');
            assert.equal(await statusOf(gateway.url, other), 200);
          }
        });
      }
    },
  );
}
