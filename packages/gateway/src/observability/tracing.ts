import { readFileSync } from 'node:fs';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, defaultTextMapGetter, defaultTextMapSetter, trace, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import {
  CHANNELS,
  UNMATCHED_ROUTE,
  type AuthOutcomeEvent,
  type LimitDecisionEvent,
  type RequestEndEvent,
  type RequestRecord,
  type RequestStartEvent,
  type UpstreamCallEvent,
  type UpstreamStartEvent,
} from '../events/index.js';
import { subscribeAll } from './subscribe.js';

/** What tracing needs (`OTEL_*` settings, parsed in `config/`). */
export interface TracingOptions {
  /** Where spans go: OTLP over HTTP, JSON. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly serviceName: string;
  readonly sampler: 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';
  /** The ratio of the `traceidratio` samplers. */
  readonly ratio: number;
  readonly exportDelayMs: number;
}

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

function samplerOf(config: TracingOptions): Sampler {
  const root = config.sampler.endsWith('always_off')
    ? new AlwaysOffSampler()
    : config.sampler.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(config.ratio)
      : new AlwaysOnSampler();
  return config.sampler.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/**
 * Traces, as a subscriber of the request path's events: a server span per request named
 * `{method} {route}`, continuing the client's W3C `traceparent` (a new trace when there is none),
 * with child spans for the key verification, the limit decision and the upstream call, whose
 * context goes upstream in `traceparent` / `tracestate`. Spans are exported over OTLP/HTTP (JSON)
 * in batches. The request's trace id goes into its record, hence into its log line.
 */
export function createTracing(source: object, config: TracingOptions): { stop(): Promise<void> } {
  const exporter = new OTLPTraceExporter({ url: config.url, headers: { ...config.headers } });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName, [ATTR_SERVICE_VERSION]: VERSION }),
    sampler: samplerOf(config),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: config.exportDelayMs })],
  });
  const tracer: Tracer = provider.getTracer('@animal-store/gateway', VERSION);
  const propagator = new W3CTraceContextPropagator();
  const servers = new WeakMap<RequestRecord, Span>();
  const clients = new WeakMap<RequestRecord, Span>();
  const within = (request: RequestRecord) => {
    const server = servers.get(request);
    return server === undefined ? undefined : trace.setSpan(ROOT_CONTEXT, server);
  };
  /** A finished child span of the request's server span, from the times its event carries. */
  const child = (request: RequestRecord, name: string, startedAt: number, durationMs: number, attributes: Record<string, string>) => {
    const parent = within(request);
    if (parent !== undefined) tracer.startSpan(name, { startTime: startedAt, attributes }, parent).end(startedAt + durationMs);
  };

  const unsubscribe = subscribeAll({
    [CHANNELS.requestStart]: ({ request, headers }: RequestStartEvent) => {
      if (request.source !== source) return;
      const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      const span = tracer.startSpan(
        request.method,
        {
          kind: SpanKind.SERVER,
          startTime: request.startedAt,
          attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method, [ATTR_URL_PATH]: request.url.split('?')[0] as string },
        },
        parent,
      );
      servers.set(request, span);
      request.traceId = span.spanContext().traceId;
    },
    [CHANNELS.authOutcome]: ({ request, outcome, verified, startedAt, durationMs }: AuthOutcomeEvent) => {
      if (request.source !== source) return;
      // A key the cache knew costs a lookup, not a verification: an attribute, not a span.
      if (verified) child(request, 'verify key', startedAt, durationMs, { 'gateway.auth.outcome': outcome });
      else servers.get(request)?.setAttribute('gateway.auth.outcome', outcome);
    },
    [CHANNELS.limitDecision]: ({ request, plan, decision, startedAt, durationMs }: LimitDecisionEvent) => {
      if (request?.source === source)
        child(request, 'rate limit', startedAt, durationMs, { 'gateway.ratelimit.plan': plan, 'gateway.ratelimit.decision': decision });
    },
    [CHANNELS.upstreamStart]: ({ request, headers }: UpstreamStartEvent) => {
      const parent = request.source === source ? within(request) : undefined;
      if (parent === undefined) return;
      const span = tracer.startSpan(request.method, { kind: SpanKind.CLIENT, attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method } }, parent);
      clients.set(request, span);
      // The upstream continues the gateway's trace: the client's own headers give way to the call's.
      delete headers.traceparent;
      delete headers.tracestate;
      propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
    },
    [CHANNELS.upstreamCall]: ({ request, serverAddress, serverPort, status, errorType, startedAt, durationMs }: UpstreamCallEvent) => {
      const span = request.source === source ? clients.get(request) : undefined;
      if (span === undefined) return;
      span.setAttributes({ [ATTR_SERVER_ADDRESS]: serverAddress, [ATTR_SERVER_PORT]: serverPort });
      if (status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      if (errorType !== undefined) {
        span.setAttribute(ATTR_ERROR_TYPE, errorType);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end(startedAt + durationMs);
    },
    [CHANNELS.requestEnd]: ({ request, status }: RequestEndEvent) => {
      const span = request.source === source ? servers.get(request) : undefined;
      if (span === undefined) return;
      // Without a route (no operation at the path), the name is the method alone, as the conventions say.
      if (request.route !== UNMATCHED_ROUTE) {
        span.updateName(`${request.method} ${request.route}`);
        span.setAttribute(ATTR_HTTP_ROUTE, request.route);
      }
      span.setAttributes({ [ATTR_HTTP_RESPONSE_STATUS_CODE]: status, 'gateway.outcome': request.outcome });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  });
  return {
    async stop() {
      unsubscribe();
      // The collector may be gone: stopping must not fail for it.
      await provider.shutdown().catch(() => {});
    },
  };
}
