import { z } from 'zod';
import type { MetricsOptions } from '../observability/metrics-server.js';
import type { TracingOptions } from '../observability/tracing.js';
import { port } from './env-values.js';

export type MetricsConfig = MetricsOptions;
export type TracingConfig = TracingOptions;

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

/** The metrics listener and the standard OpenTelemetry variables the gateway reads. */
export const ObservabilityEnv = {
  METRICS_PORT: port.optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).default('otlp'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  OTEL_EXPORTER_OTLP_HEADERS: headerList.default({}),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: headerList.default({}),
  OTEL_SERVICE_NAME: z.string().min(1).default('animal-store-gateway'),
  OTEL_TRACES_SAMPLER: z.enum(SAMPLERS).default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(1).default(5000),
};

const ObservabilitySchema = z.object(ObservabilityEnv);
type Env = z.infer<typeof ObservabilitySchema>;

/** Metrics only with `METRICS_PORT`; traces only when an OTLP endpoint is set (and the exporter is not `none`). */
export function observabilityConfig(e: Env): { readonly metrics: MetricsConfig | undefined; readonly tracing: TracingConfig | undefined } {
  const metrics = e.METRICS_PORT === undefined ? undefined : Object.freeze({ host: e.METRICS_HOST, port: e.METRICS_PORT });
  const base = e.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base === undefined ? undefined : `${base.replace(/\/+$/, '')}/v1/traces`);
  const tracing =
    url === undefined || e.OTEL_TRACES_EXPORTER === 'none'
      ? undefined
      : Object.freeze({
          url,
          headers: { ...e.OTEL_EXPORTER_OTLP_HEADERS, ...e.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
          serviceName: e.OTEL_SERVICE_NAME,
          sampler: e.OTEL_TRACES_SAMPLER,
          ratio: e.OTEL_TRACES_SAMPLER_ARG,
          exportDelayMs: e.OTEL_BSP_SCHEDULE_DELAY,
        });
  return { metrics, tracing };
}
