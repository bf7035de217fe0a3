import { readFileSync } from 'node:fs';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, defaultTextMapGetter, type Tracer } from '@opentelemetry/api';
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
import { createRequestTraces, DrawnTraceIds, passTraceContext, type RequestSamplers, type RequestTrace } from './request-trace.js';
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

/** A request's trace, kept on its record under a key only this module knows. */
const TRACE = Symbol('request trace');
type TracedRecord = RequestRecord & { [TRACE]?: RequestTrace };
const traceOf = (request: RequestRecord): RequestTrace | undefined => (request as TracedRecord)[TRACE];
/**
 * The request's trace when its spans are recorded. A request left out gets no child spans:
 * whatever the sampler, they would be left out too (same trace id, or a parent not sampled).
 */
const recordedOf = (request: RequestRecord) => {
  const requestTrace = traceOf(request);
  return requestTrace?.recording === true ? requestTrace : undefined;
};

/** The path of a request target, without its query (`url.path`). */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * The sampler OTEL_TRACES_SAMPLER names, and the one that decides a request without a client
 * trace: for `parentbased_*`, its root sampler, which is what the parent-based one would ask.
 */
function samplersOf(config: TracingOptions): RequestSamplers {
  const root = config.sampler.endsWith('always_off')
    ? new AlwaysOffSampler()
    : config.sampler.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(config.ratio)
      : new AlwaysOnSampler();
  return { sampler: config.sampler.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root, root };
}

/**
 * Traces, as a subscriber of the request path's events: a server span per request named
 * `{method} {route}`, continuing the client's W3C `traceparent` (a new trace when there is none),
 * with child spans for the key verification, the limit decision and the upstream call, whose
 * context goes upstream in `traceparent` / `tracestate`. A request the sampler leaves out makes no
 * span at all (`request-trace.ts`): the upstream gets its trace context flagged not sampled. Spans
 * are exported over OTLP/HTTP (JSON) in batches. The request's trace id goes into its record, hence
 * into its log line.
 */
export function createTracing(
  source: object,
  config: TracingOptions,
  /** More attributes of the resource: a worker's id and pid, say. */
  resource: Readonly<Record<string, string | number>> = {},
): { stop(): Promise<void> } {
  const exporter = new OTLPTraceExporter({ url: config.url, headers: { ...config.headers } });
  const samplers = samplersOf(config);
  const ids = new DrawnTraceIds();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ ...resource, [ATTR_SERVICE_NAME]: config.serviceName, [ATTR_SERVICE_VERSION]: VERSION }),
    sampler: samplers.sampler,
    idGenerator: ids,
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: config.exportDelayMs })],
  });
  const tracer: Tracer = provider.getTracer('@animal-store/gateway', VERSION);
  const startRequestTrace = createRequestTraces(tracer, samplers, ids);
  const propagator = new W3CTraceContextPropagator();
  /** A finished child span of the request's server span, from the times its event carries. */
  const child = (request: RequestRecord, name: string, startedAt: number, durationMs: number, attributes: Record<string, string>) => {
    const recorded = recordedOf(request);
    if (recorded !== undefined) tracer.startSpan(name, { startTime: startedAt, attributes }, recorded.context).end(startedAt + durationMs);
  };

  const unsubscribe = subscribeAll({
    [CHANNELS.requestStart]: ({ request, headers }: RequestStartEvent) => {
      if (request.source !== source) return;
      // Without `traceparent` there is nothing to continue (`tracestate` alone is ignored).
      const parent = headers.traceparent === undefined ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      const requestTrace = startRequestTrace(parent, {
        name: request.method,
        startTime: request.startedAt,
        attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method, [ATTR_URL_PATH]: pathOf(request.url) },
      });
      (request as TracedRecord)[TRACE] = requestTrace;
      request.traceId = requestTrace.traceId;
    },
    [CHANNELS.authOutcome]: ({ request, outcome, verified, startedAt, durationMs }: AuthOutcomeEvent) => {
      if (request.source !== source) return;
      // A key the cache knew costs a lookup, not a verification: an attribute, not a span.
      if (verified) child(request, 'verify key', startedAt, durationMs, { 'gateway.auth.outcome': outcome });
      else recordedOf(request)?.server.setAttribute('gateway.auth.outcome', outcome);
    },
    [CHANNELS.limitDecision]: ({ request, plan, decision, startedAt, durationMs }: LimitDecisionEvent) => {
      if (request?.source === source)
        child(request, 'rate limit', startedAt, durationMs, { 'gateway.ratelimit.plan': plan, 'gateway.ratelimit.decision': decision });
    },
    [CHANNELS.upstreamStart]: ({ request, headers }: UpstreamStartEvent) => {
      const requestTrace = request.source === source ? traceOf(request) : undefined;
      if (requestTrace === undefined) return;
      // The upstream continues the gateway's trace from its call; a request left out passes on the
      // server span it would have had, so the upstream knows it is left out.
      if (requestTrace.recording) {
        const client = tracer.startSpan(
          request.method,
          { kind: SpanKind.CLIENT, attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method } },
          requestTrace.context,
        );
        requestTrace.client = client;
        passTraceContext(headers, client.spanContext());
      } else {
        const { traceId, traceFlags, traceState } = requestTrace;
        passTraceContext(headers, { traceId, spanId: ids.generateSpanId(), traceFlags, traceState });
      }
    },
    [CHANNELS.upstreamCall]: ({ request, serverAddress, serverPort, status, errorType, startedAt, durationMs }: UpstreamCallEvent) => {
      const span = request.source === source ? recordedOf(request)?.client : undefined;
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
      const span = request.source === source ? recordedOf(request)?.server : undefined;
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
