// `npm run bench:script [-- --accounts n] [--batch n] [--requests n] [--rate n] [--repeats n]
// [--instructions [--keep-profile]] [--cold]`: what the rate-limit script costs Redis per request
// when every request goes to Redis (issue 40, point 2). Its own redis-server; the real limiter
// (`createRedisLimiter`, no leases) decides `--requests` requests of `--accounts` accounts picked
// uniformly at random, `--batch` at a time (one script call each), on the shipped `business` plan
// (1,000 a minute, 100,000 a day, bans on), with a key id and its revocation checked, as the
// gateway sends them: every request admitted, the common path. The clock is simulated: `--rate`
// requests a second over all accounts (6,000 by default, about what one gateway core serves, so 3 a
// second an account and most of a minute's buckets count some), after a warm-up of a simulated
// minute in which every account sends one request a second (in calls of 128): accounts are measured
// as a steady load leaves them, each window's buckets filled, not freshly made. Figures: Redis CPU
// per request two ways, the script's (µs: the usec of `INFO commandstats`' FCALL, EVALSHA and EVAL
// over the requests decided) and the process's (/proc), requests per script call, and the memory of
// an account's key (`MEMORY USAGE`, averaged over 200 of them). `--repeats`: the measurement again,
// each on its own counters; the median is reported. `--instructions`: redis-server under callgrind
// (valgrind), and the instructions it ran per request, which a busy machine does not change (200
// accounts and 1,300 requests by default); with `--keep-profile`, callgrind's profile of the last
// run is left for `callgrind_annotate` (Redis's functions by name need a redis-server with symbols
// first on PATH). `--cold`: no warm-up, and every request an account's first (what a new account
// costs, as the long tail of a Zipf spread meets them).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createRedisClient, createRedisLimiter, minuteAndDay, type LimitRequest } from '@animal-store/gateway';
import { startRedis } from '@animal-store/testkit';
import { Redis } from 'ioredis';
import { callgrindSkipReason, startCallgrindRedis } from './lib/callgrind-redis.js';

const { values } = parseArgs({
  options: {
    accounts: { type: 'string' },
    batch: { type: 'string' },
    requests: { type: 'string' },
    rate: { type: 'string' },
    repeats: { type: 'string' },
    instructions: { type: 'boolean' },
    'keep-profile': { type: 'boolean' },
    cold: { type: 'boolean' },
  },
});
// Under callgrind, Redis runs about 50 times slower: fewer accounts and requests by default.
const counting = values.instructions === true;
const cold = values.cold === true;
if (counting && callgrindSkipReason() !== false) throw new Error(callgrindSkipReason() as string);
const rate = Number(values.rate ?? 6000);
const accounts = Number(values.accounts ?? (counting ? 200 : 2000));
const batch = Number(values.batch ?? 13);
const requests = Number(values.requests ?? (counting ? 1300 : 13_000));
const repeats = Number(values.repeats ?? (counting ? 1 : 5));
for (const [name, value] of Object.entries({ accounts, batch, requests, rate, repeats })) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} takes a whole number ≥ 1`);
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const policy = minuteAndDay('business', 1000, 100_000, { strikes: 30, strikeWindowMs: 60_000, banMs: 300_000 });
const PREFIX = 'bench';

/** usec and calls of the script commands since the counters were reset. */
function scriptStats(commandstats: string): { usec: number; calls: number } {
  let usec = 0;
  let calls = 0;
  for (const match of commandstats.matchAll(/^cmdstat_(?:evalsha|eval|fcall):calls=(\d+),usec=(\d+)/gm)) {
    calls += Number(match[1]);
    usec += Number(match[2]);
  }
  return { usec, calls };
}

/**
 * The CPU time redis-server used so far (µs; Linux's /proc, 10 ms ticks), or undefined elsewhere.
 * `commandstats` counts wall time inside each command, which a busy machine's preemption inflates;
 * this does not, and it counts the whole process (reading calls, writing replies) as well.
 */
function processCpu(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/** A seeded generator (mulberry32), so every run asks the same accounts in the same order. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const requestOf = (i: number): LimitRequest => ({ subject: `acct-${i}`, keyId: `key-${i}`, policy, checkRevoked: true });

const grind = counting ? await startCallgrindRedis({ keep: values['keep-profile'] === true }) : undefined;
const redis =
  grind === undefined
    ? await startRedis()
    : {
        url: grind.url,
        pid: undefined,
        close: async () => {
          const kept = grind.close();
          if (kept !== undefined) log(`callgrind's profile of the last run: ${kept} (callgrind_annotate --threshold=100 ${kept})`);
        },
      };
const admin = new Redis(redis.url);
const client = createRedisClient(redis.url, { commandTimeoutMs: 60_000 });
try {
  // Connected first: the client queues nothing while it connects.
  for (
    let tries = 0;
    !(await client.ping().then(
      () => true,
      () => false,
    ));
    tries++
  ) {
    if (tries > 1500) throw new Error(`could not connect to Redis at ${redis.url}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  let now = 1_800_000_000_000;
  const limiter = createRedisLimiter(client, { prefix: PREFIX, now: () => Math.floor(now) });
  // A simulated minute, each account one request a second, in calls of 128 (a fast warm-up); none
  // with --cold, whose every request is an account's first.
  const warming = createRedisLimiter(client, { prefix: PREFIX, now: () => Math.floor(now), maxBatch: 128 });
  for (let second = 0; second < (cold ? 0 : 60); second++, now += 1000) {
    for (let i = 0; i < accounts; i += 128) {
      await Promise.all(Array.from({ length: Math.min(128, accounts - i) }, (_, j) => warming.check(requestOf(i + j))));
    }
  }
  const next = seeded(40);
  let fresh = accounts;
  const runs: { usPerRequest: number; cpuPerRequest: number; clientPerRequest: number; perCall: number; refused: number }[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    await admin.config('RESETSTAT');
    grind?.zero();
    const cpuBefore = processCpu(redis.pid);
    const ownBefore = process.cpuUsage();
    let refused = 0;
    for (let done = 0; done < requests; done += batch) {
      const size = Math.min(batch, requests - done);
      const decided = await Promise.all(Array.from({ length: size }, () => limiter.check(requestOf(cold ? fresh++ : Math.floor(next() * accounts)))));
      refused += decided.filter((d) => !d.allowed).length;
      now += (size * 1000) / rate;
    }
    const instructions = grind?.instructions();
    if (instructions !== undefined) log(`  run ${repeat + 1}: ${(instructions / requests).toFixed(0)} instructions per request (redis-server, callgrind)`);
    const { usec, calls } = scriptStats(await admin.info('commandstats'));
    const own = process.cpuUsage(ownBefore);
    const cpuAfter = processCpu(redis.pid);
    const cpuPerRequest = cpuBefore === undefined || cpuAfter === undefined ? NaN : (cpuAfter - cpuBefore) / requests;
    const clientPerRequest = (own.user + own.system) / requests;
    runs.push({ usPerRequest: usec / requests, cpuPerRequest, clientPerRequest, perCall: requests / calls, refused });
    log(
      `  run ${repeat + 1}: script ${(usec / requests).toFixed(2)} µs per request, redis-server ${cpuPerRequest.toFixed(2)} µs, client ${clientPerRequest.toFixed(2)} µs, ${(requests / calls).toFixed(1)} requests a call, ${refused} refused`,
    );
  }
  // MEMORY USAGE of 200 accounts' keys, found by SCAN (the limiter names them).
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [after, found] = await admin.scan(cursor, 'MATCH', `*${PREFIX}*`, 'COUNT', 500);
    cursor = after;
    for (const key of found) if (keys.length < 200 && (await admin.type(key)) === 'string') keys.push(key);
  } while (cursor !== '0' && keys.length < 200);
  let bytes = 0;
  for (const key of keys) bytes += Number(await admin.memory('USAGE', key));
  const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const median = { perCall: middle(runs.map((run) => run.perCall)), refused: middle(runs.map((run) => run.refused)) };
  const figure = (values: number[]) => (values.some(Number.isNaN) ? 'n/a' : `${middle(values).toFixed(2)} (least ${Math.min(...values).toFixed(2)})`);
  log('');
  log(
    `| accounts | requests a call | script µs per request (commandstats, median of ${repeats}) | redis-server CPU µs per request | this process's CPU µs per request (limiter, ioredis, kernel) | bytes per account (MEMORY USAGE, ${keys.length} keys) |`,
  );
  log('|---:|---:|---:|---:|---:|---:|');
  log(
    `| ${accounts} | ${median.perCall.toFixed(1)} | ${figure(runs.map((run) => run.usPerRequest))} | ${figure(runs.map((run) => run.cpuPerRequest))} | ${figure(runs.map((run) => run.clientPerRequest))} | ${(bytes / Math.max(1, keys.length)).toFixed(0)} |`,
  );
  log(
    `(${requests} requests a run at a simulated ${rate} a second, ${median.refused} refused; redis-server ${(await admin.info('server')).match(/redis_version:(\S+)/)?.[1] ?? '?'})`,
  );
} finally {
  await client.close();
  admin.disconnect();
  await redis.close();
}
