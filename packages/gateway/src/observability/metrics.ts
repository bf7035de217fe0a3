import { readFileSync } from 'node:fs';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  CHANNELS,
  type AuthOutcomeEvent,
  type KeyCacheLookupEvent,
  type LimitDecisionEvent,
  type RedisCommandEvent,
  type RequestEndEvent,
  type RequestStartEvent,
  type UpstreamCallEvent,
} from '../events/index.js';
import { subscribeAll } from './subscribe.js';

/** OpenTelemetry's default buckets for HTTP durations, in seconds. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
const REDIS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25];
/** Methods become labels as they are; any other is `_OTHER` (OpenTelemetry's rule): labels stay bounded. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'CONNECT']);
const methodLabel = (method: string) => (METHODS.has(method) ? method : '_OTHER');
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface MetricsProbes {
  /** Asked at each scrape for `gateway_upstream_up`. */
  upstreamUp(): Promise<boolean>;
  /** Asked at each scrape for `gateway_redis_up`; absent without Redis. */
  redisUp?: (() => Promise<boolean>) | undefined;
}

/**
 * The gateway's Prometheus metrics, as a subscriber of the events its parts publish: names after
 * OpenTelemetry's HTTP conventions in Prometheus form, and the gateway's own. No label holds a raw
 * path, key, account or address. Returns the registry to expose and what stops the subscription.
 */
export function createMetrics(source: object, probes: MetricsProbes): { readonly registry: Registry; stop(): void } {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  const requests = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Requests the gateway answered, by method, route template, status and outcome.',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code', 'outcome'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const active = new Gauge({ name: 'http_server_active_requests', help: 'Requests in progress.', labelNames: ['http_request_method'] as const, registers });
  const upstreamCalls = new Histogram({
    name: 'http_client_request_duration_seconds',
    help: 'Calls to the backend, until its answer started; error_type on failure.',
    labelNames: ['http_request_method', 'server_address', 'server_port', 'http_response_status_code', 'error_type'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const decisions = new Counter({ name: 'gateway_ratelimit_decisions_total', help: 'Rate-limit decisions by plan.', labelNames: ['plan', 'decision'] as const, registers });
  const auth = new Counter({ name: 'gateway_auth_outcomes_total', help: 'API key checks by outcome.', labelNames: ['outcome'] as const, registers });
  const keyCache = new Counter({ name: 'gateway_key_cache_lookups_total', help: 'Lookups of the verified-key cache.', labelNames: ['result'] as const, registers });
  const redisCommands = new Histogram({ name: 'gateway_redis_command_duration_seconds', help: 'Redis commands of the gateway, by command and whether it answered.', labelNames: ['command', 'ok'] as const, buckets: REDIS_BUCKETS, registers });
  new Gauge({
    name: 'gateway_upstream_up',
    help: '1 when the backend answers its readiness path, asked at each scrape.',
    registers,
    async collect() {
      this.set((await probes.upstreamUp()) ? 1 : 0);
    },
  });
  const redisUp = probes.redisUp;
  if (redisUp !== undefined) {
    new Gauge({
      name: 'gateway_redis_up',
      help: '1 when Redis answers a ping, asked at each scrape.',
      registers,
      async collect() {
        this.set((await redisUp()) ? 1 : 0);
      },
    });
  }
  new Gauge({ name: 'gateway_build_info', help: 'The gateway version and Node.js version, always 1.', labelNames: ['version', 'node_version'] as const, registers }).set(
    { version: VERSION, node_version: process.version },
    1,
  );

  // One child per label set, found by a string key: the label hashing is paid once, not per request.
  const children = new Map<string, { observe(value: number): void }>();
  const stop = subscribeAll({
    [CHANNELS.requestStart]: ({ request }: RequestStartEvent) => {
      if (request.source === source) active.inc({ http_request_method: methodLabel(request.method) });
    },
    [CHANNELS.requestEnd]: ({ request, status, durationMs }: RequestEndEvent) => {
      if (request.source !== source) return;
      const method = methodLabel(request.method);
      active.dec({ http_request_method: method });
      const key = `${method} ${request.route} ${status} ${request.outcome}`;
      let child = children.get(key);
      if (child === undefined) {
        child = requests.labels({ http_request_method: method, http_route: request.route, http_response_status_code: String(status), outcome: request.outcome });
        children.set(key, child);
      }
      child.observe(durationMs / 1000);
    },
    [CHANNELS.upstreamCall]: ({ request, serverAddress, serverPort, durationMs, status, errorType }: UpstreamCallEvent) => {
      if (request.source !== source) return;
      const labels = { http_request_method: methodLabel(request.method), server_address: serverAddress, server_port: String(serverPort) };
      upstreamCalls.observe(status === undefined ? { ...labels, error_type: errorType ?? 'unknown' } : { ...labels, http_response_status_code: String(status) }, durationMs / 1000);
    },
    [CHANNELS.limitDecision]: ({ request, plan, decision }: LimitDecisionEvent) => {
      if (request === undefined || request.source === source) decisions.inc({ plan, decision });
    },
    [CHANNELS.authOutcome]: ({ request, outcome }: AuthOutcomeEvent) => {
      if (request.source === source) auth.inc({ outcome });
    },
    [CHANNELS.keyCacheLookup]: ({ result }: KeyCacheLookupEvent) => keyCache.inc({ result }),
    [CHANNELS.redisCommand]: ({ command, durationMs, ok }: RedisCommandEvent) => redisCommands.observe({ command, ok: String(ok) }, durationMs / 1000),
  });
  return { registry, stop };
}
