import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { publishRedisDegraded } from '../events/index.js';
import { subscribeAccessLog } from './access-log.js';

/** A logger whose lines are kept, and a clock the test moves. */
function setUp() {
  const lines: { msg: string; policy?: string; err?: { message: string } }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  let at = 1_000_000;
  const stop = subscribeAccessLog(logger, {}, () => at);
  return { lines, stop, advance: (ms: number) => void (at += ms) };
}

test('Redis degraded: one line a second of each part, with the policy and the error', (t) => {
  const { lines, stop, advance } = setUp();
  t.after(stop);
  const error = new Error('Redis did not answer within 50 ms');
  for (let i = 0; i < 5; i += 1) publishRedisDegraded({ part: 'rate limits', policy: 'local', error });
  publishRedisDegraded({ part: 'revocations', error });
  publishRedisDegraded({ part: 'revocations', error });
  assert.deepEqual(
    lines.map((line) => [line.msg, line.policy, line.err?.message]),
    [
      ['rate limits degraded: Redis did not answer in time', 'local', error.message],
      ['revocation check degraded: Redis did not answer, using the last copy', undefined, error.message],
    ],
  );
  advance(999);
  publishRedisDegraded({ part: 'rate limits', policy: 'local', error });
  assert.equal(lines.length, 2, 'still within the second');
  advance(1);
  publishRedisDegraded({ part: 'rate limits', policy: 'local', error });
  assert.equal(lines.length, 3, 'a second later, one more line');
});

test('Redis degraded: nothing is logged once the subscriber stopped', () => {
  const { lines, stop } = setUp();
  stop();
  publishRedisDegraded({ part: 'rate limits', policy: 'open', error: new Error('down') });
  assert.equal(lines.length, 0);
});
