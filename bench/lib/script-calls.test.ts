import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { redisSkipReason, startRedis } from '@animal-store/testkit';
import { redisStatsIn, scriptCallCounter, scriptCallsIn, statsDelta } from './script-calls.js';

test('the script calls of INFO commandstats are its FCALL, EVALSHA and EVAL calls, and nothing else', () => {
  const info = [
    '# Commandstats',
    'cmdstat_evalsha:calls=1200,usec=40000,usec_per_call=33.33,rejected_calls=0,failed_calls=0',
    'cmdstat_eval:calls=3,usec=300,usec_per_call=100.00,rejected_calls=0,failed_calls=0',
    'cmdstat_fcall:calls=40,usec=400,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
    'cmdstat_evalsha_ro:calls=50,usec=500,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
    'cmdstat_fcall_ro:calls=60,usec=600,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
    'cmdstat_script|load:calls=2,usec=80,usec_per_call=40.00,rejected_calls=0,failed_calls=0',
    'cmdstat_function|load:calls=2,usec=80,usec_per_call=40.00,rejected_calls=0,failed_calls=0',
    'cmdstat_info:calls=9,usec=90,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
    '',
  ].join('\r\n');
  assert.equal(scriptCallsIn(info), 1243);
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
  await client.function('LOAD', "#!lua name=counted\nredis.register_function('counted', function() return 3 end)");
  for (let i = 0; i < 4; i++) await client.fcall('counted', 0);
  await client.get('not-a-script');
  assert.equal((await counter.count()) - before, 10);
});

test("INFO cpu and commandstats give the script calls, the µs spent in them and the server's CPU in µs", () => {
  const info = [
    '# CPU',
    'used_cpu_sys:1.250000',
    'used_cpu_user:2.000001',
    'used_cpu_sys_children:9.000000',
    'used_cpu_user_children:9.000000',
    '',
    '# Commandstats',
    'cmdstat_evalsha:calls=1200,usec=40000,usec_per_call=33.33,rejected_calls=0,failed_calls=0',
    'cmdstat_eval:calls=3,usec=300,usec_per_call=100.00,rejected_calls=0,failed_calls=0',
    'cmdstat_get:calls=7,usec=70,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
    '',
  ].join('\r\n');
  assert.deepEqual(redisStatsIn(info), { scriptCalls: 1203, scriptUsec: 40300, cpuUsec: 3_250_001 });
  assert.deepEqual(redisStatsIn(''), { scriptCalls: 0, scriptUsec: 0, cpuUsec: 0 });
  assert.deepEqual(statsDelta({ scriptCalls: 1, scriptUsec: 10, cpuUsec: 100 }, { scriptCalls: 4, scriptUsec: 70, cpuUsec: 350 }), {
    scriptCalls: 3,
    scriptUsec: 60,
    cpuUsec: 250,
  });
});

test('the reader sums the counters of every node it is given', { skip: redisSkipReason() }, async (t) => {
  const [a, b] = [await startRedis(), await startRedis()];
  const clients = [new Redis(a.url), new Redis(b.url)];
  const reader = scriptCallCounter(a.url, b.url);
  t.after(async () => {
    reader.close();
    clients.forEach((client) => client.disconnect());
    await Promise.all([a.close(), b.close()]);
  });
  const before = await reader.stats();
  for (const client of clients) for (let i = 0; i < 3; i++) await client.eval('local n = 0 for i = 1, 20000 do n = n + i end return n', 0);
  const delta = statsDelta(before, await reader.stats());
  assert.equal(delta.scriptCalls, 6);
  assert.ok(delta.scriptUsec > 0 && delta.cpuUsec >= 0, JSON.stringify(delta));
});
