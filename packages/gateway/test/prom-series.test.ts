import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Registry } from 'prom-client';
import { SeriesCounter, SeriesHistogram } from '../src/observability/prom-series.js';

describe('series found by label values', () => {
  test('each distinct list of values is its own series, found again without being made again', async () => {
    const registry = new Registry();
    const counter = new SeriesCounter('test_total', 'A test counter.', ['plan', 'decision'], registry);
    counter.at('free', 'allowed').value += 1;
    counter.at('free', 'allowed').value += 1;
    counter.at('free', 'limited').value += 1;
    counter.at('pro', 'allowed').value += 1;
    assert.equal(counter.at('free', 'allowed'), counter.at('free', 'allowed'));
    const text = await registry.metrics();
    assert.match(text, /^test_total\{plan="free",decision="allowed"\} 2$/m);
    assert.match(text, /^test_total\{plan="free",decision="limited"\} 1$/m);
    assert.match(text, /^test_total\{plan="pro",decision="allowed"\} 1$/m);
    assert.equal(text.match(/^test_total\{/gm)?.length, 3);
  });

  test('a value of "" leaves its label out; numbers and booleans become their text', async () => {
    const registry = new Registry();
    const calls = new SeriesHistogram('calls_seconds', 'Test calls.', ['method', 'status', 'error_type', 'ok'], [0.1, 1], registry);
    calls.observe(calls.at('GET', 200, '', true), 0.05);
    calls.observe(calls.at('GET', '', 'timeout', false), 2);
    const text = await registry.metrics();
    assert.match(text, /^calls_seconds_bucket\{method="GET",status="200",ok="true",le="0.1"\} 1$/m);
    assert.match(text, /^calls_seconds_count\{method="GET",error_type="timeout",ok="false"\} 1$/m);
    assert.match(text, /^calls_seconds_bucket\{method="GET",error_type="timeout",ok="false",le="1"\} 0$/m);
    assert.match(text, /^calls_seconds_bucket\{method="GET",error_type="timeout",ok="false",le="\+Inf"\} 1$/m);
    assert.match(text, /^calls_seconds_sum\{method="GET",error_type="timeout",ok="false"\} 2$/m);
  });

  test('histogram buckets are cumulative in the exposition; a value on a bound falls in that bucket', async () => {
    const registry = new Registry();
    const histogram = new SeriesHistogram('h_seconds', 'Test.', ['route'], [0.1, 0.5], registry);
    const series = histogram.at('/v1/pets');
    for (const value of [0.1, 0.2, 0.5, 0.7]) histogram.observe(series, value);
    const text = await registry.metrics();
    assert.match(text, /^h_seconds_bucket\{route="\/v1\/pets",le="0.1"\} 1$/m);
    assert.match(text, /^h_seconds_bucket\{route="\/v1\/pets",le="0.5"\} 3$/m);
    assert.match(text, /^h_seconds_bucket\{route="\/v1\/pets",le="\+Inf"\} 4$/m);
    assert.match(text, /^h_seconds_count\{route="\/v1\/pets"\} 4$/m);
  });

  test('reset forgets every series', async () => {
    const registry = new Registry();
    const counter = new SeriesCounter('gone_total', 'Test.', ['outcome'], registry);
    counter.at('hit').value += 3;
    registry.resetMetrics();
    counter.at('miss').value += 1;
    const text = await registry.metrics();
    assert.doesNotMatch(text, /outcome="hit"/);
    assert.match(text, /^gone_total\{outcome="miss"\} 1$/m);
  });
});
