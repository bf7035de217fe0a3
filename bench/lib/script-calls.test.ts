import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, startRedis } from '@animal-store/testkit';
import { scriptCallCounter, scriptCallsIn } from './script-calls.js';

test('the script calls of INFO commandstats are its EVALSHA and EVAL calls, and nothing else', () => {
  const info = [
    '# Commandstats',
    'cmdstat_evalsha:calls=1200,usec=40000,usec_per_call=33.33,rejected_calls=0,failed_calls=0',
    'cmdstat_eval:calls=3,usec=300,usec_per_call=100.00,rejected_calls=0,failed_calls=0',
    'cmdstat_evalsha_ro:calls=50,usec=500,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
    'cmdstat_script|load:calls=2,usec=80,usec_per_call=40.00,rejected_calls=0,failed_calls=0',
    'cmdstat_info:calls=9,usec=90,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
    '',
  ].join('\r\n');
  assert.equal(scriptCallsIn(info), 1203);
  assert.equal(scriptCallsIn('# Commandstats\r\ncmdstat_ping:calls=1,usec=1,usec_per_call=1.00\r\n'), 0);
});

test('a counter reads the script calls a real Redis ran between two readings', { skip: redisSkipReason() }, async (t) => {
  const redis = await startRedis();
  const client = new Redis(redis.url);
  const counter = scriptCallCounter(redis.url);
  t.after(async () => {
    counter.close();
    client.disconnect();
    await redis.close();
  });
  const before = await counter.count();
  const sha = (await client.script('LOAD', 'return 1')) as string;
  for (let i = 0; i < 5; i++) await client.evalsha(sha, 0);
  await client.eval('return 2', 0);
  await client.get('not-a-script');
  assert.equal((await counter.count()) - before, 6);
});
