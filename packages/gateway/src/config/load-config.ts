import type { BlockList } from 'node:net';
import type { ProxyEngine } from '../proxy/engines.js';
import { GatewayEnvChecked, trustedProxies } from './env-schema.js';

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
  };
  readonly openApiFile: string;
  readonly bodyLimitBytes: number;
  /** Peers whose `X-Forwarded-*` headers are believed; `undefined` when none is. */
  readonly trustProxy: BlockList | undefined;
  readonly server: {
    readonly headersTimeoutMs: number;
    readonly requestTimeoutMs: number;
    readonly maxHeaderSize: number;
    readonly keepAliveTimeoutMs: number;
  };
  readonly shutdownTimeoutMs: number;
  /** Answer 410 for deprecated operations once their sunset has passed. */
  readonly enforceSunset: boolean;
  /** Overrides the `rel="deprecation"` link target. */
  readonly deprecationDocUrl: string | undefined;
  readonly logLevel: string;
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
  readonly redis: { readonly url: string; readonly cluster: boolean; readonly prefix: string; readonly commandTimeoutMs: number } | undefined;
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

export type ConfigResult =
  | { readonly ok: true; readonly config: GatewayConfig }
  | { readonly ok: false; readonly problems: readonly string[] };

/** Parses the environment once; on failure lists every problem, one line per variable. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): ConfigResult {
  // An empty variable means "unset", as with `VAR= cmd`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = GatewayEnvChecked.safeParse(present);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) };
  }
  const e = parsed.data;
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
    },
    openApiFile: e.OPENAPI_FILE,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    trustProxy: e.TRUST_PROXY.length === 0 ? undefined : trustedProxies(e.TRUST_PROXY),
    server: {
      headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      maxHeaderSize: e.MAX_HEADER_SIZE,
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
    },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    enforceSunset: e.ENFORCE_SUNSET,
    deprecationDocUrl: e.DEPRECATION_DOC_URL,
    logLevel: e.LOG_LEVEL,
    auth:
      e.AUTH === 'off'
        ? { mode: 'off' }
        : {
            mode: 'required',
            keys:
              e.JWKS_FILE !== undefined
                ? { kind: 'file', path: e.JWKS_FILE }
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
            revocationsFile: e.REVOCATIONS_FILE,
          },
    rateLimits:
      e.RATE_LIMITS === 'off'
        ? { mode: 'off' }
        : {
            mode: 'on',
            plansFile: e.PLANS_FILE,
            onRedisFailure: e.RATE_LIMIT_ON_REDIS_FAILURE,
            localShare: e.RATE_LIMIT_LOCAL_SHARE,
            denyCacheMs: e.RATE_LIMIT_DENY_CACHE_MS,
          },
    redis:
      e.REDIS_URL === undefined
        ? undefined
        : { url: e.REDIS_URL, cluster: e.REDIS_CLUSTER, prefix: e.REDIS_PREFIX, commandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS },
  };
  Object.freeze(config.upstream);
  Object.freeze(config.auth);
  Object.freeze(config.rateLimits);
  Object.freeze(config.server);
  return { ok: true, config: Object.freeze(config) };
}

/** The configuration of this process: the one place the gateway reads `process.env`. */
export function loadConfigFromEnv(): ConfigResult {
  return loadConfig(process.env);
}
