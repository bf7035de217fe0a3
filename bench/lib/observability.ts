import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@animal-store/testkit';
import { measurePaired, type PairedOptions, type PairedResult } from './paired.js';
import { startService, type Service } from './services.js';

/** The full pipeline on Redis with metrics on, and with tracing exporting to a local sink (all requests, or one in ten). */
export interface ObservedGateways {
  readonly metrics: Service;
  /** The metrics gateway's admin `/metrics`, scraped during its runs as Prometheus would. */
  readonly metricsUrl: string;
  readonly tracing: Service;
  /** Tracing as advised at high rates: one trace in ten recorded (`parentbased_traceidratio`, 0.1). */
  readonly sampled: Service;
  /** OTLP export requests the sink received so far. */
  exports(): number;
  close(): Promise<void>;
}

/**
 * Starts the two gateways the observability scenarios measure, configured as `env` (the full
 * pipeline on Redis) plus: `METRICS_PORT` for one; an OTLP/HTTP endpoint for the other, a sink in
 * this process that answers every export at once, so what is measured is the gateway's own cost.
 */
export async function startObservedGateways(env: Record<string, string>): Promise<ObservedGateways> {
  let received = 0;
  const sink: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const metricsPort = await freePort();
  const metrics = await startService('gateway (keys, limits in Redis, metrics on)', 'gateway', { ...env, METRICS_PORT: String(metricsPort) });
  const tracingEnv = {
    ...env,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`,
    // Exports every second: spans leave while the load runs, not after.
    OTEL_BSP_SCHEDULE_DELAY: '1000',
  };
  const tracing = await startService('gateway (keys, limits in Redis, tracing exported)', 'gateway', tracingEnv);
  const sampled = await startService('gateway (keys, limits in Redis, one trace in ten exported)', 'gateway', {
    ...tracingEnv,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0.1',
  });
  return {
    metrics,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    tracing,
    sampled,
    exports: () => received,
    async close() {
      await Promise.all([metrics.stop(), tracing.stop(), sampled.stop()]);
      sink.closeAllConnections();
      await new Promise((resolve) => sink.close(resolve));
    },
  };
}

/** Runs `load` while `/metrics` is fetched every second (a scrape costs the gateway too). */
export async function whileScraped<T>(metricsUrl: string, load: () => Promise<T>): Promise<T> {
  let scrapes = 0;
  const timer = setInterval(() => {
    fetch(metricsUrl)
      .then((res) => res.text())
      .then(
        () => (scrapes += 1),
        () => {},
      );
  }, 1000);
  try {
    return await load();
  } finally {
    clearInterval(timer);
    if (
      scrapes === 0 &&
      (await fetch(metricsUrl).then(
        (res) => res.ok,
        () => false,
      )) === false
    )
      throw new Error(`${metricsUrl} does not answer`);
  }
}

/** The gateways the observability goals compare, for `measureObservability`. */
export interface ObservabilityGateways {
  /** The full pipeline on Redis, metrics and tracing off: the baseline. */
  readonly off: Service;
  /** A second gateway configured as `off`: its ratio to `off` is the method's noise in that run. */
  readonly control: Service;
  readonly observed: ObservedGateways;
}

/**
 * The observability goals as capacity ratios: `off`, `control`, `metrics` (scraped every second),
 * `tracing` and `sampled` (one trace in ten) loaded together on `GET /v1/pets` (see `paired.ts`),
 * each compared with `off`.
 */
export function measureObservability(
  { off, control, observed }: ObservabilityGateways,
  options: Omit<PairedOptions, 'gateways' | 'baseline' | 'path'>,
): Promise<PairedResult> {
  return measurePaired({
    ...options,
    gateways: [
      { name: 'off', service: off },
      { name: 'control', service: control },
      { name: 'metrics', service: observed.metrics, whileLoaded: (load) => whileScraped(observed.metricsUrl, load) },
      { name: 'tracing', service: observed.tracing },
      { name: 'sampled', service: observed.sampled },
    ],
    baseline: 'off',
    path: '/v1/pets',
  });
}
