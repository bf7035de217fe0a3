import assert from 'node:assert/strict';
import type { OutgoingHttpHeaders } from 'node:http';
import { test } from 'node:test';
import { ROOT_CONTEXT, SpanKind, TraceFlags, defaultTextMapGetter, defaultTextMapSetter, trace, type SpanContext } from '@opentelemetry/api';
import { TraceState, W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  ParentBasedSampler,
  SamplingDecision,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import { createRequestTraces, DrawnTraceIds, passTraceContext } from './request-trace.js';

/** The SDK's own tracer with `sampler` (`root` for a request without a client trace), its spans kept in memory, starting request traces as tracing.ts does. */
function setUp(sampler: Sampler, root = sampler) {
  const exporter = new InMemorySpanExporter();
  const ids = new DrawnTraceIds();
  const provider = new BasicTracerProvider({ sampler, idGenerator: ids, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const start = createRequestTraces(provider.getTracer('test'), { sampler, root }, ids);
  return { exporter, start: (parent = ROOT_CONTEXT) => start(parent, { name: 'GET', startTime: performance.now(), attributes: {} }) };
}

const keeps = (sampler: Sampler, traceId: string) =>
  sampler.shouldSample(ROOT_CONTEXT, traceId, 'GET', SpanKind.SERVER, {}, []).decision === SamplingDecision.RECORD_AND_SAMPLED;

test('a root request is kept or left out on the trace id it is then given, one in two with a ratio of 0.5', () => {
  const sampler = new TraceIdRatioBasedSampler(0.5);
  const { exporter, start } = setUp(sampler);
  const requests = 2000;
  let kept = 0;
  for (let i = 0; i < requests; i++) {
    const started = start();
    if (started.recording) {
      kept += 1;
      // The span takes the id the sampler decided on, not one the tracer drew anew.
      assert.ok(keeps(sampler, started.server.spanContext().traceId));
      started.server.end();
    } else {
      assert.match(started.traceId, /^[0-9a-f]{32}$/);
      assert.equal(keeps(sampler, started.traceId), false, 'left out: the sampler refuses its trace id');
      assert.equal(started.traceFlags, TraceFlags.NONE);
    }
  }
  // Binomial, n = 2000, p = 0.5: 1000 ± 22 (one standard deviation). Drawn twice (the tracer's own
  // id decided on again), one in four would be kept: 500.
  assert.ok(kept > 0.4 * requests && kept < 0.6 * requests, `${kept} of ${requests} kept`);
  assert.equal(exporter.getFinishedSpans().length, kept, 'a request left out makes no span');
});

test("a client's trace: followed when sampled, left out with its trace state when not", () => {
  const propagator = new W3CTraceContextPropagator();
  const root = new TraceIdRatioBasedSampler(0);
  const { exporter, start } = setUp(new ParentBasedSampler({ root }), root);
  const client = (flags: string) =>
    propagator.extract(
      ROOT_CONTEXT,
      { traceparent: `00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-${flags}`, tracestate: 'vendor=abc' },
      defaultTextMapGetter,
    );

  const sampled = start(client('01'));
  assert.ok(sampled.recording);
  sampled.server.end();
  const [span] = exporter.getFinishedSpans();
  assert.equal(span?.spanContext().traceId, '0af7651916cd43dd8448eb211c80319c');
  assert.equal(span?.parentSpanContext?.spanId, 'b7ad6b7169203331');

  const left = start(client('00'));
  assert.equal(left.recording, false);
  assert.equal(left.traceId, '0af7651916cd43dd8448eb211c80319c');
  assert.equal(left.traceState?.serialize(), 'vendor=abc');
  assert.equal(exporter.getFinishedSpans().length, 1);
});

test("the upstream's trace context is what the SDK's W3C propagator writes, in place of the client's", () => {
  const propagator = new W3CTraceContextPropagator();
  const contexts: SpanContext[] = [
    { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED },
    { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.NONE },
    { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.NONE, traceState: new TraceState('a=1,b=2') },
  ];
  for (const spanContext of contexts) {
    for (const client of [{}, { traceparent: '00-11111111111111111111111111111111-2222222222222222-01', tracestate: 'client=1' }]) {
      const expected: OutgoingHttpHeaders = { accept: '*/*' };
      propagator.inject(trace.setSpanContext(ROOT_CONTEXT, spanContext), expected, defaultTextMapSetter);
      const headers: OutgoingHttpHeaders = { accept: '*/*', ...client };
      passTraceContext(headers, spanContext);
      assert.deepEqual(headers, expected);
    }
  }
});
