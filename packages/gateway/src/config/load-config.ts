import type { BlockList } from 'node:net';
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ProxyEngine } from '../proxy/engines.js';
import { GatewayEnvChecked, trustedProxies } from './env-schema.js';
import { observabilityConfig, type MetricsConfig, type TracingConfig } from './observability-env.js';

export interface GatewayConfig {
  readonly port: number;
  readonly host: string;
  readonly upstream: {
    readonly url: URL;
    readonly timeoutMs: number;
    readonly idleTimeoutMs: number;
    readonly maxSockets: number;
    readonly readyPath: string;
    readonly engine: ProxyEngine;
    /** The backend's base path, which replaces the public one; `undefined`: paths go unchanged. */
    readonly basePath: string | undefined;
    /** Send the client's verified `Authorization` on to a backend that checks it too. */
    readonly forwardAuthorization: boolean;
  };
  /** The public base path of every operation; `undefined`: the document's first server's. */
  readonly publicBasePath: string | undefined;
  /** TLS on the gateway's own listener (PEM files, re-read at each start). */
  readonly tls: { readonly certFile: string; readonly keyFile: string } | undefined;
  /** Browsers on these origins may call the API; `undefined`: no CORS headers at all. */
  readonly cors: { readonly origins: readonly string[] | '*'; readonly maxAgeSeconds: number } | undefined;
  readonly openApiFile: string;
  readonly bodyLimitBytes: number;
  /** Peers whose `X-Forwarded-*` headers are believed; `undefined` when none is. */
  readonly trustProxy: BlockList | undefined;
  readonly server: {
    readonly headersTimeoutMs: number;
    readonly requestTimeoutMs: number;
    readonly maxHeaderSize: number;
    readonly keepAliveTimeoutMs: number;
    /** A connection whose client takes nothing of its answer for this long is closed. */
    readonly sendTimeoutMs: number;
  };
  readonly shutdownTimeoutMs: number;
  /** Answer 410 for deprecated operations once their sunset has passed. */
  readonly enforceSunset: boolean;
  /** Overrides the `rel="deprecation"` link target. */
  readonly deprecationDocUrl: string | undefined;
  readonly logLevel: string;
  /** The admin listener of `/metrics` (METRICS_PORT); `undefined`: no metrics. */
  readonly metrics: MetricsConfig | undefined;
  /** OTLP trace export (the `OTEL_*` variables); `undefined`: no traces. */
  readonly tracing: TracingConfig | undefined;
  readonly auth: AuthConfig;
  readonly rateLimits:
    | { readonly mode: 'off' }
    | {
        readonly mode: 'on';
        readonly plansFile: string;
        readonly onRedisFailure: 'open' | 'closed' | 'local';
        readonly localShare: number;
        readonly denyCacheMs: number;
      };
  /** Shared state (revocations; rate limits next). Without it, state is in process. */
  readonly redis:
    { readonly url: string; readonly cluster: boolean; readonly prefix: string; readonly commandTimeoutMs: number; readonly batchWindowMs: number } | undefined;
}

export type KeysConfig =
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'inline'; readonly jwks: { keys: Record<string, unknown>[] } }
  | { readonly kind: 'remote'; readonly url: URL; readonly timeoutMs: number; readonly cooldownMs: number; readonly cacheMaxAgeMs: number };

export type AuthConfig =
  | { readonly mode: 'off' }
  | {
      readonly mode: 'required';
      readonly keys: KeysConfig;
      readonly issuer: string;
      readonly audience: string;
      readonly algorithms: readonly string[];
      readonly clockToleranceSeconds: number;
      readonly cacheSize: number;
      readonly revocationsFile: string | undefined;
    };

export type ConfigResult = { readonly ok: true; readonly config: GatewayConfig } | { readonly ok: false; readonly problems: readonly string[] };

/** Parses the environment once; on failure lists every problem, one line per variable. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): ConfigResult {
  // An empty variable means "unset", as with `VAR= cmd`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = GatewayEnvChecked.safeParse(present);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) };
  }
  const e = parsed.data;
  // Relative paths are the operator's: taken from where `npm run` was typed (INIT_CWD), else the
  // working directory, never from wherever a workspace script happens to run.
  const base = e.INIT_CWD ?? process.cwd();
  const file = <T extends string | undefined>(path: T): T => (path === undefined ? path : (resolve(base, path) as T));
  const config: GatewayConfig = {
    port: e.PORT,
    host: e.HOST,
    upstream: {
      url: new URL(e.UPSTREAM_URL),
      timeoutMs: e.UPSTREAM_TIMEOUT_MS,
      idleTimeoutMs: e.UPSTREAM_IDLE_TIMEOUT_MS,
      maxSockets: e.UPSTREAM_MAX_SOCKETS,
      readyPath: e.UPSTREAM_READY_PATH,
      engine: e.PROXY_ENGINE,
      basePath: e.UPSTREAM_BASE_PATH,
      forwardAuthorization: e.FORWARD_AUTHORIZATION,
    },
    publicBasePath: e.PUBLIC_BASE_PATH,
    tls: e.TLS_CERT_FILE === undefined || e.TLS_KEY_FILE === undefined ? undefined : { certFile: file(e.TLS_CERT_FILE), keyFile: file(e.TLS_KEY_FILE) },
    cors: e.CORS_ORIGINS.length === 0 ? undefined : { origins: e.CORS_ORIGINS[0] === '*' ? '*' : e.CORS_ORIGINS, maxAgeSeconds: e.CORS_MAX_AGE_SECONDS },
    openApiFile: file(e.OPENAPI_FILE),
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    trustProxy: e.TRUST_PROXY.length === 0 ? undefined : trustedProxies(e.TRUST_PROXY),
    server: {
      headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      maxHeaderSize: e.MAX_HEADER_SIZE,
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
      sendTimeoutMs: e.SEND_TIMEOUT_MS,
    },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    enforceSunset: e.ENFORCE_SUNSET,
    deprecationDocUrl: e.DEPRECATION_DOC_URL,
    logLevel: e.LOG_LEVEL,
    ...observabilityConfig(e),
    auth:
      e.AUTH === 'off'
        ? { mode: 'off' }
        : {
            mode: 'required',
            keys:
              e.JWKS_FILE !== undefined
                ? { kind: 'file', path: file(e.JWKS_FILE) }
                : e.JWKS !== undefined
                  ? { kind: 'inline', jwks: e.JWKS }
                  : {
                      kind: 'remote',
                      url: new URL(e.JWKS_URL as string),
                      timeoutMs: e.JWKS_TIMEOUT_MS,
                      cooldownMs: e.JWKS_COOLDOWN_MS,
                      cacheMaxAgeMs: e.JWKS_CACHE_MAX_AGE_MS,
                    },
            issuer: e.KEY_ISSUER,
            audience: e.KEY_AUDIENCE,
            algorithms: e.KEY_ALGORITHMS,
            clockToleranceSeconds: e.KEY_CLOCK_TOLERANCE_SECONDS,
            cacheSize: e.AUTH_CACHE_SIZE,
            // `none`: Redis is the only deny-list (an explicit choice, never the default).
            revocationsFile: e.REVOCATIONS_FILE === 'none' ? undefined : (file(e.REVOCATIONS_FILE) ?? keyringDenyList(file(e.JWKS_FILE))),
          },
    rateLimits:
      e.RATE_LIMITS === 'off'
        ? { mode: 'off' }
        : {
            mode: 'on',
            plansFile: file(e.PLANS_FILE),
            onRedisFailure: e.RATE_LIMIT_ON_REDIS_FAILURE,
            localShare: e.RATE_LIMIT_LOCAL_SHARE,
            denyCacheMs: e.RATE_LIMIT_DENY_CACHE_MS,
          },
    redis:
      e.REDIS_URL === undefined
        ? undefined
        : {
            url: e.REDIS_URL,
            cluster: e.REDIS_CLUSTER,
            prefix: e.REDIS_PREFIX,
            commandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
            batchWindowMs: e.REDIS_BATCH_WINDOW_MS,
          },
  };
  Object.freeze(config.upstream);
  Object.freeze(config.auth);
  Object.freeze(config.rateLimits);
  Object.freeze(config.server);
  if (config.cors !== undefined) Object.freeze(config.cors);
  return { ok: true, config: Object.freeze(config) };
}

/**
 * The keyring's deny-list beside its key set: `…/public/revoked.json` when `jwks` is
 * `…/public/jwks.json` and that file exists. Secure by default: a gateway given the keyring's
 * public folder reads its revocations too, so a key revoked in the file stays refused after
 * Redis restarts empty, without anyone remembering to set REVOCATIONS_FILE.
 */
function keyringDenyList(jwks: string | undefined): string | undefined {
  if (jwks === undefined || basename(jwks) !== 'jwks.json' || basename(dirname(jwks)) !== 'public') return undefined;
  const revoked = join(dirname(jwks), 'revoked.json');
  return existsSync(revoked) ? revoked : undefined;
}

/** The configuration of this process: the one place the gateway reads `process.env`. */
export function loadConfigFromEnv(): ConfigResult {
  return loadConfig(process.env);
}
