import { randomFillSync } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import {
  ROOT_CONTEXT,
  SpanKind,
  TraceFlags,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type TraceState,
  type Tracer,
} from '@opentelemetry/api';
import { SamplingDecision, type IdGenerator, type Sampler } from '@opentelemetry/sdk-trace-base';

/** Random bytes for ids, drawn from the system's generator a pool at a time. */
const POOL_BYTES = 4096;

/**
 * Random W3C ids, as lower-case hex (the SDK's `RandomIdGenerator` makes them of `Math.random`,
 * about twice as slowly), except that a root span's trace id can be drawn before the span is
 * made: the sampler decides on that id first (`createRequestTraces`), and the span it keeps takes it.
 */
export class DrawnTraceIds implements IdGenerator {
  private readonly pool = Buffer.allocUnsafe(POOL_BYTES);
  private used = POOL_BYTES;
  /** The trace id the next root span takes, set just before the tracer makes it. */
  next: string | undefined;
  generateTraceId(): string {
    const drawn = this.next;
    this.next = undefined;
    return drawn ?? this.random(16);
  }
  generateSpanId(): string {
    return this.random(8);
  }
  /** `bytes` random bytes in hex, never all zeros (W3C's invalid id). */
  private random(bytes: number): string {
    if (this.used + bytes > POOL_BYTES) {
      randomFillSync(this.pool);
      this.used = 0;
    }
    const start = this.used;
    this.used += bytes;
    for (let i = start; i < start + bytes; i++) if (this.pool[i] !== 0) return this.pool.toString('hex', start, start + bytes);
    return this.random(bytes);
  }
}

/**
 * A request's trace: its server span when the sampler keeps it; else what a span left out passes
 * on (W3C trace context: the trace id, flags that say it is not sampled, the trace state), its
 * span id made only if the request goes upstream.
 */
export type RequestTrace = {
  /** The W3C trace id: the client's, or a new trace's. */
  readonly traceId: string;
} & (
  | {
      readonly recording: true;
      readonly server: Span;
      /** The server span's context: the parent of the request's other spans. */
      readonly context: Context;
      client: Span | undefined;
    }
  | {
      readonly recording: false;
      readonly traceFlags: TraceFlags;
      readonly traceState: TraceState | undefined;
    }
);

/** What the server span starts with, as the tracer takes it. */
export interface ServerSpanStart {
  readonly name: string;
  /** `performance.now()` at arrival. */
  readonly startTime: number;
  readonly attributes: Attributes;
}

/** The tracer's sampler, and the one it delegates a request without a client trace to (itself, unless parent-based). */
export interface RequestSamplers {
  readonly sampler: Sampler;
  readonly root: Sampler;
}

/**
 * Starts requests' traces as the SDK's tracer would (the same sampler, asked with the same
 * arguments), but asks the sampler before anything is made: a request left out costs a trace id
 * (or its client's) and a decision, not a span, a span id, a context and their checks. `parent`
 * is the client's context (`ROOT_CONTEXT` without a valid `traceparent`); without a client trace
 * the root sampler is asked directly, as the parent-based one would (its own lookups cost about a
 * microsecond a request in a gateway under load). `tracer` must be made with `samplers.sampler`
 * and with `ids` as its id generator: a root span kept takes the trace id decided on.
 */
export function createRequestTraces(tracer: Tracer, samplers: RequestSamplers, ids: DrawnTraceIds) {
  return function startRequestTrace(parent: Context, span: ServerSpanStart): RequestTrace {
    // `extract` puts a span context in `parent` only for a valid `traceparent`.
    const remote = trace.getSpanContext(parent);
    const traceId = remote?.traceId ?? ids.generateTraceId();
    const sampler = remote === undefined ? samplers.root : samplers.sampler;
    const sampled = sampler.shouldSample(parent, traceId, span.name, SpanKind.SERVER, span.attributes, []);
    if (sampled.decision === SamplingDecision.NOT_RECORD) {
      // What the tracer's non-recording span would carry: the sampler's trace state, else the client's.
      return { traceId, recording: false, traceFlags: TraceFlags.NONE, traceState: sampled.traceState ?? remote?.traceState };
    }
    if (remote === undefined) ids.next = traceId;
    let server: Span;
    try {
      // The tracer asks its sampler again with the same arguments, so it decides the same.
      server = tracer.startSpan(span.name, { kind: SpanKind.SERVER, startTime: span.startTime, attributes: span.attributes }, parent);
    } finally {
      // Never left for another span: two requests would share a trace.
      ids.next = undefined;
    }
    if (server.isRecording()) return { traceId, recording: true, server, context: trace.setSpan(ROOT_CONTEXT, server), client: undefined };
    // A sampler that decides otherwise the second time (none of OTEL_TRACES_SAMPLER's) is obeyed.
    const { traceFlags, traceState } = server.spanContext();
    return { traceId, recording: false, traceFlags, traceState };
  };
}

/**
 * Writes `span`'s W3C trace context into headers going upstream, in place of the client's:
 * `traceparent` (version 00), and `tracestate` when the span has one. What the SDK's
 * `W3CTraceContextPropagator.inject` writes, without the context it would be handed the span in.
 */
export function passTraceContext(headers: OutgoingHttpHeaders, { traceId, spanId, traceFlags, traceState }: SpanContext): void {
  headers.traceparent = `00-${traceId}-${spanId}-${traceFlags < 16 ? '0' : ''}${traceFlags.toString(16)}`;
  if (traceState !== undefined) headers.tracestate = traceState.serialize();
  else if (headers.tracestate !== undefined) delete headers.tracestate;
}
