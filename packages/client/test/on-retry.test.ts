import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, createClient, type RetryNotice } from '../src/index.js';

const answer = (status: number, code: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ code, message: code, status }), { status, headers: { 'content-type': 'application/json', ...headers } });

/** A client whose fetch answers from `replies` and whose sleep only records: no real wait. */
function scripted(replies: (Response | Error)[]) {
  const notices: RetryNotice[] = [];
  const events: string[] = [];
  const client = createClient({
    baseUrl: 'http://api.test/',
    apiKey: 'k',
    random: () => 0.5,
    retry: { maxAttempts: 5 },
    fetch: async () => {
      const reply = replies.shift();
      if (reply === undefined) throw new Error('the script ran out of replies');
      if (reply instanceof Error) throw reply;
      return reply;
    },
    onRetry: (notice) => {
      notices.push(notice);
      events.push(`retry ${notice.attempt}`);
    },
    sleep: async (ms) => {
      events.push(`sleep ${ms}`);
    },
  });
  return { client, notices, events };
}

test('onRetry is told the coming attempt, the wait and its reason, before each wait', async () => {
  const network = new TypeError('fetch failed');
  const { client, notices, events } = scripted([
    answer(429, 'rate_limited', { 'retry-after': '61' }),
    network,
    answer(503, 'rate_limit_unavailable', { 'retry-after': '1' }),
    Response.json([]),
  ]);
  assert.deepEqual(await client.listPets(), []);
  assert.deepEqual(
    notices.map(({ attempt, delayMs, reason }) => ({ attempt, delayMs, reason })),
    [
      { attempt: 2, delayMs: 61_000, reason: 'rate_limited' },
      // Full jitter with random() = 0.5: half of 100 ms × 2^(2−1).
      { attempt: 3, delayMs: 100, reason: 'network_error' },
      { attempt: 4, delayMs: 1000, reason: 'rate_limit_unavailable' },
    ],
  );
  assert.ok(notices[0]?.error instanceof ApiError && notices[0].error.status === 429);
  assert.equal(notices[1]?.error, network);
  assert.deepEqual(events, ['retry 2', 'sleep 61000', 'retry 3', 'sleep 100', 'retry 4', 'sleep 1000']);
});

test('onRetry is not called when nothing is retried', async () => {
  const { client, notices } = scripted([answer(429, 'key_banned', { 'retry-after': '300' })]);
  await assert.rejects(client.listPets(), (error: ApiError) => error.code === 'key_banned');
  assert.deepEqual(notices, []);
});
