import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import autocannon from 'autocannon';
import { collectGarbage, freePortPair } from './full-gc.js';
import { startProcess, type ServiceUnderTest } from './processes.js';
import { startRecordingUpstream, writeDocument, PROXY_TEST_PATHS, createTestKeyring, type RecordingUpstream } from '../support/index.js';

// Hostile suite, issue 29 point 10: keyless requests from 300,000 client addresses (one each,
// X-Forwarded-For through a trusted proxy, keep-alive) against a gateway process with in-process
// limits and default settings. Its RSS (primary and worker) grows by at most 64 MB: the anonymous
// addresses' counters in the primary, and the worker's book of their last answers, are tables of
// RATE_LIMIT_MAX_ADDRESSES entries, the least recently seen forgotten first. RSS is read after a
// full garbage collection in both processes (full-gc.ts): what they hold, not the garbage V8 lets
// build up first, by about the young generation's size (64 MB here), which a table's growth hides in.
// FLOOD_ENV='{"RATE_LIMIT_MAX_ADDRESSES":"10000000"}' lifts the cap, to see the test fail.

const ADDRESSES = Number(process.env.FLOOD_ADDRESSES ?? 300_000);
/** Requests before RSS is read, from a few addresses: the heap grows to what this load needs first. */
const WARM_UP = 300_000;
const WARM_UP_ADDRESSES = 10_000;
const CONNECTIONS = 16;
const MAX_GROWTH = 64 * 1024 * 1024;
const FLOOD_ENV = JSON.parse(process.env.FLOOD_ENV ?? '{}') as Record<string, string>;

/** The n-th address of the flood: 10.0.0.0/8 and up, one per request. */
const addressOf = (n: number) => `${10 + (n >>> 24)}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;

/** `amount` keyless requests, each from the next address after `from` (modulo `spread`); resolves with the statuses seen. */
function flood(url: string, from: number, amount: number, spread = amount): Promise<Record<string, number>> {
  let sent = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        amount,
        requests: [
          {
            method: 'GET',
            path: '/v1/pets', // no such operation in the test document: a 404, charged to the address
            setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'x-forwarded-for': addressOf(from + (sent++ % spread)) } }),
          },
        ],
      },
      (error: unknown, result: autocannon.Result) => {
        if (error !== null && error !== undefined) reject(error as Error);
        else resolve(result.statusCodeStats as unknown as Record<string, number>);
      },
    );
  });
}

describe(`hostile: keyless requests from ${ADDRESSES.toLocaleString('en')} addresses, in-process limits`, () => {
  let upstream: RecordingUpstream;
  let gateway: ServiceUnderTest;
  let inspectPort: number;
  /** RSS of the primary and the worker, each read after a full collection. */
  async function heldRss(): Promise<number> {
    await collectGarbage(gateway.startedPid, inspectPort);
    await collectGarbage(gateway.pid, inspectPort + 1);
    return gateway.totalRss();
  }

  before(async () => {
    upstream = await startRecordingUpstream();
    const keyring = await createTestKeyring();
    inspectPort = await freePortPair();
    gateway = await startProcess('gateway', {
      UPSTREAM_URL: upstream.url,
      OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
      JWKS_FILE: keyring.files.jwks,
      TRUST_PROXY: '127.0.0.1',
      RATE_LIMITS: 'on',
      // The inspector's port, opened only when the test asks for a full collection (SIGUSR1).
      NODE_OPTIONS: `--inspect-port=${inspectPort}`,
      ...FLOOD_ENV,
    });
  });
  after(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  test('RSS grows by at most 64 MB, and the anonymous limit still refuses', { timeout: 150_000 }, async () => {
    // Each warm-up address is refused after its first 30: both answers' code paths run, and the
    // heap grows to what 16 busy connections need, before RSS is read.
    await flood(gateway.url, 0xf0_00_00_00, WARM_UP, WARM_UP_ADDRESSES);
    const before = await heldRss();
    const started = performance.now();
    // In six parts, RSS printed after each: it levels off once the table is full.
    const statuses: Record<string, number> = {};
    const samples: string[] = [];
    for (let part = 0; part < 6; part++) {
      const size = Math.ceil(ADDRESSES / 6);
      const seen = await flood(gateway.url, part * size, Math.min(size, ADDRESSES - part * size));
      for (const [status, { count }] of Object.entries(seen as unknown as Record<string, { count: number }>))
        statuses[status] = (statuses[status] ?? 0) + count;
      samples.push(`${(((await heldRss()) - before) / 2 ** 20).toFixed(0)}`);
    }
    const seconds = (performance.now() - started) / 1000;
    const grown = (await heldRss()) - before;
    console.log(
      `# ${ADDRESSES} addresses in ${seconds.toFixed(1)} s: RSS ${(before / 2 ** 20).toFixed(0)} → ${((before + grown) / 2 ** 20).toFixed(0)} MB (+${(grown / 2 ** 20).toFixed(1)} MB); statuses ${JSON.stringify(statuses)}; growth after each sixth (MB): ${samples.join(', ')}`,
    );
    assert.deepEqual(Object.keys(statuses), ['404'], 'every address is within its own limit: 404 for the unknown path');
    assert.ok(grown <= MAX_GROWTH, `RSS grew by ${(grown / 2 ** 20).toFixed(1)} MB`);

    // The table still protects an address that keeps sending: its 31st request in a minute is refused.
    const address = addressOf(ADDRESSES + 1);
    const answers: number[] = [];
    for (let i = 0; i < 31; i++) answers.push((await fetch(`${gateway.url}/v1/pets`, { headers: { 'x-forwarded-for': address } })).status);
    assert.equal(answers.filter((status) => status === 404).length, 30);
    assert.equal(answers.at(-1), 429);
  });
});
