import { settings } from '@animal-store/http-kit';
import { z } from 'zod';
import { hostNameList, int, port } from './env-values.js';

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

/** `key=value,key2=value2` (values percent-decoded), as OpenTelemetry's `OTEL_EXPORTER_OTLP_HEADERS`. */
const headerList = z.string().transform((value, ctx) => {
  const headers: Record<string, string> = {};
  for (const entry of value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const equals = entry.indexOf('=');
    if (equals <= 0) {
      ctx.addIssue({ code: 'custom', message: `"${entry}" is not key=value` });
      continue;
    }
    headers[entry.slice(0, equals).trim()] = decodeURIComponent(entry.slice(equals + 1).trim());
  }
  return headers;
});

/** The admin listener of `/metrics`: the config's `metrics`, with METRICS_PORT. */
export const METRICS = settings({
  port: ['METRICS_PORT', port.optional()],
  host: ['METRICS_HOST', z.string().min(1).default('127.0.0.1')],
  /** Host names the admin listener answers to besides its own (`admin/host-check.ts`). */
  hosts: ['ADMIN_HOSTS', hostNameList.default([])],
});

/**
 * The standard OpenTelemetry variables, read here rather than left to the SDK, which would read
 * some of them itself: each needs checking first. An invalid value must stop the start (the
 * SDK would warn and carry on), the gateway traces only when an endpoint is set (the SDK would
 * default to localhost), its service name is the gateway's, and tests pass them in an env object,
 * not in `process.env`. The config's `tracing`, as read, except for the first five fields.
 */
export const TRACING = settings({
  exporter: ['OTEL_TRACES_EXPORTER', z.enum(['otlp', 'none']).default('otlp')],
  endpoint: ['OTEL_EXPORTER_OTLP_ENDPOINT', z.url({ protocol: /^https?$/ }).optional()],
  tracesEndpoint: ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', z.url({ protocol: /^https?$/ }).optional()],
  commonHeaders: ['OTEL_EXPORTER_OTLP_HEADERS', headerList.default({})],
  tracesHeaders: ['OTEL_EXPORTER_OTLP_TRACES_HEADERS', headerList.default({})],
  serviceName: ['OTEL_SERVICE_NAME', z.string().min(1).default('animal-store-gateway')],
  sampler: ['OTEL_TRACES_SAMPLER', z.enum(SAMPLERS).default('parentbased_always_on')],
  /** The ratio of the `traceidratio` samplers. */
  ratio: ['OTEL_TRACES_SAMPLER_ARG', z.coerce.number().min(0).max(1).default(1)],
  exportDelayMs: ['OTEL_BSP_SCHEDULE_DELAY', int(1).default(5000)],
});

/** The observability section's variables. */
export const OBSERVABILITY_ENV = { ...METRICS.shape, ...TRACING.shape };

/** Metrics only with `METRICS_PORT`; traces only when an OTLP endpoint is set (and the exporter is not `none`). */
export function observabilityConfig(env: Readonly<Record<string, unknown>>) {
  const { port: metricsPort, ...metrics } = METRICS.read(env);
  const { exporter, endpoint, tracesEndpoint, commonHeaders, tracesHeaders, ...tracing } = TRACING.read(env);
  const url = tracesEndpoint ?? (endpoint === undefined ? undefined : `${endpoint.replace(/\/+$/, '')}/v1/traces`);
  return {
    /** `undefined`: no metrics. */
    metrics: metricsPort === undefined ? undefined : { ...metrics, port: metricsPort },
    /** OTLP trace export; `undefined`: no traces. */
    tracing: url === undefined || exporter === 'none' ? undefined : { url, headers: { ...commonHeaders, ...tracesHeaders }, ...tracing },
  };
}
