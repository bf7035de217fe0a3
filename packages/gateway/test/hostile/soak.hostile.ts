import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import autocannon from 'autocannon';
import { redisSkipReason, TEST_ENV } from '@animal-store/testkit';
import { startStack, type Stack } from './stack.js';

// Hostile suite: a soak at about 70% of the gateway's capacity, creates mixed in (one request in
// ten is a createPet). The gateway process's RSS and descriptors must stay flat, no answer may be
// an error, and every pet created (201) must be readable through the gateway afterwards.
// SOAK_SECONDS sets the length: 90 under CI=true, 20 otherwise.

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? (TEST_ENV.ci ? 90 : 20));
const CONNECTIONS = 32;
const SAMPLE_EVERY_MS = 2000;

interface Created {
  readonly id: number;
  readonly name: string;
}

interface MixResult {
  readonly requests: number;
  readonly rps: number;
  readonly statuses: Record<string, number>;
  readonly errors: number;
  readonly timeouts: number;
}

describe(`hostile soak: ${SOAK_SECONDS} s at 70% of capacity, creates mixed in`, { skip: redisSkipReason() }, () => {
  let stack: Stack;
  let token: string;
  let url: string;
  const created: Created[] = [];

  before(async () => {
    assert.ok(Number.isFinite(SOAK_SECONDS) && SOAK_SECONDS > 0 && SOAK_SECONDS <= 3600, `SOAK_SECONDS must be 1 to 3600, got ${process.env.SOAK_SECONDS}`);
    stack = await startStack({ gateways: 1 });
    token = await stack.unlimitedKey('hostile-soak');
    url = (stack.gateways[0] as Stack['gateways'][number]).url;
  });
  after(async () => {
    await stack?.close();
  });

  /** Nine listPets, then one createPet, over and over on each connection; the 201s are collected. */
  function mix(durationSeconds: number, overallRate?: number): Promise<MixResult> {
    const headers = { authorization: `Bearer ${token}` };
    const list: autocannon.Request = { method: 'GET', path: '/v1/pets?limit=5', headers };
    const create: autocannon.Request = {
      method: 'POST',
      path: '/v1/pets',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'soak-[<id>]', categoryId: 7, status: 'available' }),
      onResponse: (status: number, body: string) => {
        if (status !== 201) return;
        const pet = JSON.parse(body) as Created;
        created.push({ id: pet.id, name: pet.name });
      },
    };
    return new Promise((resolve, reject) => {
      autocannon(
        {
          url,
          connections: CONNECTIONS,
          duration: durationSeconds,
          idReplacement: true,
          requests: [list, list, list, list, list, list, list, list, list, create],
          ...(overallRate === undefined ? {} : { overallRate }),
        },
        (error: unknown, result: autocannon.Result) => {
          if (error) return reject(error instanceof Error ? error : new Error(String(error)));
          const stats = (result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
          resolve({
            requests: result.requests.total,
            rps: result.requests.total / result.duration,
            statuses: Object.fromEntries(Object.entries(stats).map(([code, { count }]) => [code, count])),
            errors: result.errors,
            timeouts: result.timeouts,
          });
        },
      );
    });
  }

  test('RSS and descriptors flat, no error, every 201 readable afterwards', { timeout: (SOAK_SECONDS + 240) * 1000 }, async () => {
    const gateway = stack.gateways[0] as Stack['gateways'][number];
    await mix(3); // warm-up
    const capacity = await mix(5);
    const rate = Math.max(50, Math.round(capacity.rps * 0.7));
    console.log(
      `# capacity: ${Math.round(capacity.rps)} req/s with ${CONNECTIONS} connections (${JSON.stringify(capacity.statuses)}); soaking at ${rate} req/s for ${SOAK_SECONDS} s`,
    );

    const samples: { at: number; rss: number; fds: number }[] = [];
    const started = performance.now();
    const sample = () => samples.push({ at: (performance.now() - started) / 1000, rss: gateway.rss(), fds: gateway.descriptors() });
    sample();
    const sampler = setInterval(sample, SAMPLE_EVERY_MS);
    let soak: MixResult;
    try {
      soak = await mix(SOAK_SECONDS, rate);
    } finally {
      clearInterval(sampler);
    }
    sample();
    const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
    console.log(
      `# soak: ${soak.requests} requests, ${Math.round(soak.rps)} req/s, ${JSON.stringify(soak.statuses)}, errors ${soak.errors}, timeouts ${soak.timeouts}`,
    );
    console.log(`# gateway RSS MiB / descriptors every ${SAMPLE_EVERY_MS / 1000} s: ${samples.map((s) => `${mib(s.rss)}/${s.fds}`).join(' ')}`);

    assert.deepEqual(Object.keys(soak.statuses).sort(), ['200', '201'], `only 200 and 201: ${JSON.stringify(soak.statuses)}`);
    assert.equal(soak.errors, 0);
    assert.equal(soak.timeouts, 0);

    // Flat: after the first quarter (caches and pools filling), the last quarter grows by no more
    // than a quarter of the RSS, plus 16 MiB for the garbage collector's moods, and by no more than
    // 16 descriptors.
    const quarter = Math.max(1, Math.floor(samples.length / 4));
    const early = samples.slice(quarter, 2 * quarter);
    const late = samples.slice(-quarter);
    const peak = (list: typeof samples, of: 'rss' | 'fds') => Math.max(...list.map((s) => s[of]));
    const earlyRss = peak(early.length > 0 ? early : samples, 'rss');
    const lateRss = peak(late, 'rss');
    const earlyFds = peak(early.length > 0 ? early : samples, 'fds');
    const lateFds = peak(late, 'fds');
    console.log(`# RSS peak ${mib(earlyRss)} MiB early, ${mib(lateRss)} MiB late; descriptors peak ${earlyFds} early, ${lateFds} late`);
    assert.ok(lateRss <= earlyRss * 1.25 + 16 * 1048576, `RSS grew from ${mib(earlyRss)} to ${mib(lateRss)} MiB`);
    assert.ok(lateFds <= earlyFds + 16, `descriptors grew from ${earlyFds} to ${lateFds}`);

    // Every pet created is there, through the gateway.
    assert.ok(created.length > 0, 'pets were created');
    const missing: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < created.length; i += 64) {
      await Promise.all(
        created.slice(i, i + 64).map(async ({ id, name }) => {
          const res = await fetch(`${url}/v1/pets/${id}`, { headers: { authorization: `Bearer ${token}` } });
          if (res.status !== 200) return void (await res.arrayBuffer(), missing.push(id));
          if (((await res.json()) as Created).name !== name) wrong.push(id);
        }),
      );
    }
    console.log(`# ${created.length} pets created, ${created.length - missing.length - wrong.length} read back`);
    assert.deepEqual(missing, [], 'pets created (201) that cannot be read');
    assert.deepEqual(wrong, [], 'pets read back with another name');
    assert.equal(new Set(created.map((pet) => pet.id)).size, created.length, 'every 201 a distinct id');
  });
});
