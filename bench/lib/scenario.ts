import type { KeyRotation } from './key-files.js';
import { runLoad, type LoadResult, type LoadSettings } from './load.js';
import type { ObservedGateways } from './observability.js';
import type { Service } from './services.js';
import type { SpreadKeySets } from './spread-keys.js';

/** What every scenario can use: the running services, API keys, the load settings. */
export interface BenchContext {
  readonly core: Service;
  /** A gateway with authentication off: a bare proxy in front of the core. */
  readonly bare: Service;
  /** The same, on the http-proxy engine. */
  readonly bareHttpProxy: Service;
  /** A gateway with keys required, rate limits off. */
  readonly full: Service;
  /** A second full gateway, untouched until the 10,000-key scenarios (its key cache starts empty). */
  readonly fullCold: Service;
  /** Keys and in-process limits (limits high enough never to refuse). */
  readonly limitsMemory: Service;
  /** `bare`, `limitsMemory` and `limitsRedis` with `WORKERS=2` (the others run with `WORKERS=1`). */
  readonly bareWorkers2: Service;
  readonly limitsMemoryWorkers2: Service;
  readonly limitsRedisWorkers2: Service | undefined;
  /** Keys and the shipped plans; the rejection scenario brings `rejectedKey` over its limit before each run. */
  readonly rejecting: Service;
  readonly rejectedKey: string;
  /** Keys with revocations in Redis, limits off; and the same with limits in Redis. */
  readonly authRedis: Service | undefined;
  readonly limitsRedis: Service | undefined;
  /** A second gateway configured as `limitsRedis`: a control (sequential and paired). */
  readonly limitsRedisControl: Service | undefined;
  /** `limitsRedis` terminating TLS itself (TLS_CERT_FILE, TLS_KEY_FILE), where Redis is here and the bench could make a certificate. */
  readonly limitsRedisTls: Service | undefined;
  /** The same full pipeline on Redis with metrics on, and with traces exported (when Redis is here). */
  readonly observed: ObservedGateways | undefined;
  /** nginx proxy_pass in front of the core, when nginx is installed. */
  readonly nginx: Service | undefined;
  /** HAProxy in front of the core, bare and with jwt_verify + a stick table, when installed. */
  readonly haproxy: Service | undefined;
  readonly haproxyJwt: Service | undefined;
  /** The JWT one with `nbthread 2`; and with `nbthread 1` terminating TLS. */
  readonly haproxyJwt2: Service | undefined;
  readonly haproxyJwtTls: Service | undefined;
  /** The API key `haproxyJwt` verifies: `oneKey`'s claims, signed with an algorithm HAProxy knows. */
  readonly haproxyKey: string | undefined;
  /** Fastify + @fastify/http-proxy + @fastify/rate-limit on Redis + jose, when Redis is here. */
  readonly fastifyStack: Service | undefined;
  readonly oneKey: string;
  readonly manyKeys: readonly string[];
  /** The keys of each spread of many accounts this run measures (issue 40), rotated per request. */
  readonly spreads: SpreadKeySets;
  readonly settings: LoadSettings;
}

/** One request, as both load generators send it (autocannon and wrk). */
export interface LoadTarget {
  readonly url: string;
  readonly headers?: Record<string, string>;
  /** A key per request, from a spread of accounts: autocannon's `setupRequest`, wrk's Lua script. */
  readonly keys?: KeyRotation;
}

/** Runs autocannon on `target` (its keys rotated per request, if it has any). */
export function loadTarget(target: LoadTarget, settings: LoadSettings): Promise<LoadResult> {
  return runLoad({
    url: target.url,
    settings,
    ...(target.headers === undefined ? {} : { headers: target.headers }),
    ...(target.keys === undefined ? {} : { authorization: target.keys.next }),
  });
}

export interface Scenario {
  readonly name: string;
  readonly description: string;
  /** The statuses every answer should have; anything else is counted and flagged in the report. */
  readonly expectStatuses: readonly number[];
  /** Skipped (with a printed reason) where no redis-server is installed. */
  readonly needsRedis?: boolean;
  /** Skipped (with a printed reason) where nginx is not installed. */
  readonly needsNginx?: boolean;
  /** Skipped (with a printed reason) where haproxy is not installed. */
  readonly needsHaproxy?: boolean;
  /** Skipped (with a printed reason) where the bench cannot make and trust a certificate (`tlsSkipReason`). */
  readonly needsTls?: boolean;
  /** Someone else's software, measured for comparison: its errors are flagged, but do not fail the run. */
  readonly reference?: boolean;
  /** Brings about the state the scenario measures, before each of its runs and outside the measurement. */
  prepare?(context: BenchContext): Promise<void>;
  run(context: BenchContext): Promise<LoadResult>;
  /** The proxy process the scenario loads, whose CPU per request the report shows on its own. */
  proxy?(context: BenchContext): Service | undefined;
  /** The same request for wrk (throughput scenarios), run after autocannon when wrk is installed. */
  wrk?(context: BenchContext): LoadTarget;
}

/** A cycling supplier of `Bearer` headers over `keys`. */
export function cycle(keys: readonly string[]): () => string {
  let next = 0;
  return () => `Bearer ${keys[next++ % keys.length]}`;
}
