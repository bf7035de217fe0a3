import { readFileSync } from 'node:fs';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import {
  CHANNELS,
  type AuthOutcomeEvent,
  type KeyCacheLookupEvent,
  type LimitDecisionEvent,
  type PlansReloadEvent,
  type PlansVersion,
  type RedisCommandEvent,
  type RequestEndEvent,
  type RequestStartEvent,
  type UpstreamCallEvent,
} from '../events/index.js';
import { SeriesCounter, SeriesHistogram } from './prom-series.js';
import { subscribeAll } from './subscribe.js';

/**
 * OpenTelemetry's default buckets for HTTP durations, in seconds, below them five of a tenth of a
 * millisecond to 2.5 ms: the gateway's own cost (about a millisecond) can be read off them.
 * Measured: 1 to 4 ns more per observation (a linear scan past five more bounds).
 */
const HTTP_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** Up to the default command deadline and past it: a reply may be late by that much and still be used. */
const REDIS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Methods become labels as they are; any other is `_OTHER` (OpenTelemetry's rule): labels stay bounded. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'CONNECT']);
const methodLabel = (method: string) => (METHODS.has(method) ? method : '_OTHER');
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface MetricsProbes {
  /** Asked at each scrape for `gateway_upstream_up`. */
  upstreamUp(): Promise<boolean>;
  /** Asked at each scrape for `gateway_redis_up`; absent without Redis. */
  redisUp?: (() => Promise<boolean>) | undefined;
  /** Asked at each scrape for `gateway_plans_info`; absent without rate limits. */
  plansVersion?: (() => PlansVersion) | undefined;
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
  const requests = new SeriesHistogram(
    'http_server_request_duration_seconds',
    'Requests the gateway answered, by method, route template, status and outcome.',
    ['http_request_method', 'http_route', 'http_response_status_code', 'outcome'],
    HTTP_BUCKETS,
    registry,
  );
  // In progress, per method: plain numbers, set into the gauge when scraped.
  const inProgress = new Map<string, { value: number }>();
  new Gauge({
    name: 'http_server_active_requests',
    help: 'Requests in progress.',
    labelNames: ['http_request_method'] as const,
    registers,
    collect() {
      for (const [method, { value }] of inProgress) this.set({ http_request_method: method }, value);
    },
  });
  const activeOf = (method: string) => {
    let active = inProgress.get(method);
    if (active === undefined) inProgress.set(method, (active = { value: 0 }));
    return active;
  };
  const upstreamCalls = new SeriesHistogram(
    'http_client_request_duration_seconds',
    'Calls to the backend, until its answer started; error_type on failure.',
    ['http_request_method', 'server_address', 'server_port', 'http_response_status_code', 'error_type'],
    HTTP_BUCKETS,
    registry,
  );
  const decisions = new SeriesCounter('gateway_ratelimit_decisions_total', 'Rate-limit decisions by plan.', ['plan', 'decision'], registry);
  const auth = new SeriesCounter('gateway_auth_outcomes_total', 'API key checks by outcome.', ['outcome'], registry);
  const keyCache = new SeriesCounter('gateway_key_cache_lookups_total', 'Lookups of the verified-key cache.', ['result'], registry);
  const redisCommands = new SeriesHistogram(
    'gateway_redis_command_duration_seconds',
    'Redis commands of the gateway, by command and whether it answered.',
    ['command', 'ok'],
    REDIS_BUCKETS,
    registry,
  );
  new Gauge({
    name: 'gateway_upstream_up',
    help: '1 when the backend answers its readiness path, asked at each scrape.',
    registers,
    // Summed over workers by the primary unless told: up only when every worker sees it up.
    aggregator: 'min',
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
      aggregator: 'min',
      async collect() {
        this.set((await redisUp()) ? 1 : 0);
      },
    });
  }
  new Gauge({
    name: 'gateway_build_info',
    help: 'The gateway version and Node.js version, always 1.',
    labelNames: ['version', 'node_version'] as const,
    registers,
    aggregator: 'first',
  }).set({ version: VERSION, node_version: process.version }, 1);

  const plansVersion = probes.plansVersion;
  if (plansVersion !== undefined) {
    new Gauge({
      name: 'gateway_plans_info',
      help: 'The content of PLANS_FILE in force: version is the first 16 hex digits of its SHA-256, always 1.',
      labelNames: ['version'] as const,
      registers,
      // 1 per version in force: two while a change reaches the workers one by one.
      aggregator: 'max',
      collect() {
        this.reset();
        this.set({ version: plansVersion().hash }, 1);
      },
    });
    new Gauge({
      name: 'gateway_plans_modified_timestamp_seconds',
      help: 'The modification time of the PLANS_FILE content in force, in Unix seconds.',
      registers,
      // The oldest a worker still has.
      aggregator: 'min',
      collect() {
        this.set(Date.parse(plansVersion().modified) / 1000);
      },
    });
  }
  const plansReloads = new SeriesCounter('gateway_plans_reloads_total', 'Changes of PLANS_FILE seen, by outcome.', ['outcome'], registry);

  const stop = subscribeAll({
    [CHANNELS.requestStart]: ({ request }: RequestStartEvent) => {
      if (request.source === source) activeOf(methodLabel(request.method)).value += 1;
    },
    [CHANNELS.requestEnd]: ({ request, status, durationMs }: RequestEndEvent) => {
      if (request.source !== source) return;
      const method = methodLabel(request.method);
      activeOf(method).value -= 1;
      requests.observe(requests.at(method, request.route, status, request.outcome), durationMs / 1000);
    },
    [CHANNELS.upstreamCall]: ({ request, serverAddress, serverPort, durationMs, status, errorType }: UpstreamCallEvent) => {
      if (request.source !== source) return;
      const series = upstreamCalls.at(
        methodLabel(request.method),
        serverAddress,
        serverPort,
        status ?? '',
        status === undefined ? (errorType ?? 'unknown') : '',
      );
      upstreamCalls.observe(series, durationMs / 1000);
    },
    [CHANNELS.limitDecision]: ({ request, plan, decision }: LimitDecisionEvent) => {
      if (request === undefined || request.source === source) decisions.at(plan, decision).value += 1;
    },
    [CHANNELS.authOutcome]: ({ request, outcome }: AuthOutcomeEvent) => {
      if (request.source === source) auth.at(outcome).value += 1;
    },
    [CHANNELS.keyCacheLookup]: ({ result }: KeyCacheLookupEvent) => {
      keyCache.at(result).value += 1;
    },
    [CHANNELS.plansReload]: (event: PlansReloadEvent) => {
      if (event.source === source) plansReloads.at(event.outcome).value += 1;
    },
    [CHANNELS.redisCommand]: ({ command, durationMs, ok }: RedisCommandEvent) => {
      redisCommands.observe(redisCommands.at(command, ok), durationMs / 1000);
    },
  });
  return { registry, stop };
}
