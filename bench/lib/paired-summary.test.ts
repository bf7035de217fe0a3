import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median, roundLine, sampleOf, summarisePaired, summarisePairings, unexpectedAnswers, type RoundSample } from './paired-summary.js';
import { parseWrk } from './wrk.js';

const sample = (rps: number, cpuUsPerRequest: number): RoundSample => ({ requests: rps * 5, rps, cpuUsPerRequest });

test('the median of an odd and an even count, whatever the order; none throws', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([7]), 7);
  assert.throws(() => median([]), /no values/);
});

test('a sample is the CPU µs per request answered; none answered throws', () => {
  assert.deepEqual(sampleOf({ requests: 20_000, rps: 4000 }, 3000), { requests: 20_000, rps: 4000, cpuUsPerRequest: 150 });
  assert.throws(() => sampleOf({ requests: 0, rps: 0 }, 10), /no request/);
});

test('capacity ratios are the baseline median CPU per request over each one; req/s ratios the other way', () => {
  const rounds = [
    { off: sample(3000, 100), metrics: sample(2900, 125) },
    { off: sample(2000, 110), metrics: sample(1900, 120) },
    // A disturbed round: the medians leave it out.
    { off: sample(500, 400), metrics: sample(2950, 10) },
  ];
  const { baseline, gateways } = summarisePaired(rounds, 'off');
  assert.equal(baseline, 'off');
  const [off, metrics] = gateways;
  assert.equal(off?.name, 'off');
  assert.equal(off?.cpuUsPerRequest, 110);
  assert.equal(off?.capacityRatio, 1);
  assert.equal(off?.ratioOfMedians, 1);
  assert.equal(metrics?.cpuUsPerRequest, 120);
  assert.equal(metrics?.rps, 2900);
  assert.equal(metrics?.ratioOfMedians, 110 / 120);
  assert.equal(metrics?.rpsRatio, 2900 / 2000);
  assert.deepEqual(
    metrics?.rounds.map((s) => s.cpuUsPerRequest),
    [125, 120, 10],
  );
  assert.deepEqual(metrics?.capacityRatioByRound, [100 / 125, 110 / 120, 400 / 10]);
  assert.equal(metrics?.capacityRatio, 110 / 120);
});

test('the judged ratio compares the same seconds: a host drifting over the rounds and one disturbed round leave it be', () => {
  // Every round but the third, metrics costs 3 % more than off; the host slows down over the rounds.
  const rounds = [
    { off: sample(3000, 100), metrics: sample(2900, 103) },
    { off: sample(2000, 200), metrics: sample(1900, 206) },
    { off: sample(2500, 150), metrics: sample(600, 600) },
    { off: sample(900, 400), metrics: sample(880, 412) },
  ];
  const metrics = summarisePaired(rounds, 'off').gateways[1];
  assert.equal(metrics?.capacityRatio.toFixed(4), (100 / 103).toFixed(4));
  // The medians of each gateway come from different rounds: (150 + 200) / 2 against (206 + 412) / 2.
  assert.equal(metrics?.ratioOfMedians, 175 / 309);
});

test('no rounds, an unknown baseline or a round missing a gateway throw', () => {
  assert.throws(() => summarisePaired([], 'off'), /no rounds/);
  assert.throws(() => summarisePaired([{ on: sample(1, 1) }], 'off'), /no baseline off/);
  assert.throws(() => summarisePaired([{ off: sample(1, 1), on: sample(1, 1) }, { off: sample(1, 1) }], 'off'), /round 2 has no sample of on/);
});

test("every answer a 200, from autocannon's statuses or wrk's report; anything else is told", () => {
  assert.equal(unexpectedAnswers({ statuses: { '200': 900 }, errors: 0, timeouts: 0 }), undefined);
  assert.match(unexpectedAnswers({ statuses: { '200': 900, '429': 3 }, errors: 0, timeouts: 0 }) ?? '', /"429":3/);
  assert.match(unexpectedAnswers({ statuses: { '200': 900 }, errors: 2, timeouts: 0 }) ?? '', /2 socket errors/);
  const report = (extra: string) =>
    parseWrk(`Running 3s test @ http://127.0.0.1:40000/v1/pets
  1 threads and 25 connections
  Latency Distribution
     50%  472.00us
     99%    5.50ms
  29400 requests in 3.00s, 30.00MB read
${extra}Requests/sec:   9800.50
`);
  assert.equal(unexpectedAnswers(report('')), undefined);
  assert.match(unexpectedAnswers(report('  Non-2xx or 3xx responses: 12\n')) ?? '', /"other":12/);
  assert.match(unexpectedAnswers(report('  Socket errors: connect 0, read 0, write 0, timeout 4\n')) ?? '', /4 timeouts/);
});

test('a round is one line, each gateway in order', () => {
  assert.equal(roundLine(2, { off: sample(3000, 100.04), on: sample(2900, 125) }), 'round 2: off 3000 req/s 100.0 µs/req, on 2900 req/s 125.0 µs/req');
});

test('pairings: each gateway against the baseline samples of its own pairings; the baseline pools all of its own', () => {
  const pairings = new Map([
    [
      'metrics',
      [
        { off: sample(3000, 100), metrics: sample(2900, 103) },
        { off: sample(2000, 200), metrics: sample(1900, 206) },
      ],
    ],
    [
      'tracing',
      [
        // The host was slower while tracing was measured: off's samples of these seconds say so.
        { off: sample(1000, 300), tracing: sample(800, 400) },
        { off: sample(1000, 320), tracing: sample(800, 400) },
      ],
    ],
  ]);
  const { baseline, gateways } = summarisePairings(pairings, 'off');
  assert.equal(baseline, 'off');
  assert.deepEqual(
    gateways.map((g) => g.name),
    ['off', 'metrics', 'tracing'],
  );
  assert.equal(gateways[0]?.cpuUsPerRequest, 250, 'the median of all four of off');
  assert.equal(gateways[0]?.capacityRatio, 1);
  assert.equal(gateways[1]?.capacityRatio.toFixed(4), (100 / 103).toFixed(4));
  assert.equal(gateways[2]?.capacityRatio, (300 / 400 + 320 / 400) / 2);
  assert.throws(() => summarisePairings(new Map([['metrics', [{ metrics: sample(1, 1) }]]]), 'off'), /no sample of off/);
});
