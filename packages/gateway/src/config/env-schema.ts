import { BlockList, isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { PROXY_ENGINES } from '../proxy/engines.js';
import { algorithmList, basePath, cidrList, inlineJwks, ms, originList, port } from './env-values.js';
import { ObservabilityEnv } from './observability-env.js';

/**
 * The plans shipped with the gateway (the interface's limits); operators point PLANS_FILE elsewhere.
 * In a directory of its own so that docker compose can mount it: a file is replaced by a rename
 * when edited, which a single-file mount would never show.
 */
const DEFAULT_PLANS_FILE = fileURLToPath(new URL('../../plans/plans.json', import.meta.url));

/** The interface document shipped with the core; any backend's document can replace it. */
const DEFAULT_OPENAPI_FILE = fileURLToPath(new URL('../../../core/openapi.json', import.meta.url));

/** Every environment variable the gateway reads, with its default. Nothing else reads the env. */
export const GatewayEnv = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  UPSTREAM_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8081'),
  UPSTREAM_TIMEOUT_MS: ms.default(10_000),
  UPSTREAM_IDLE_TIMEOUT_MS: ms.default(30_000),
  UPSTREAM_MAX_SOCKETS: z.coerce.number().int().min(1).default(256),
  UPSTREAM_READY_PATH: z.string().startsWith('/').default('/readyz'),
  UPSTREAM_BASE_PATH: basePath.optional(),
  PUBLIC_BASE_PATH: basePath.optional(),
  FORWARD_AUTHORIZATION: z.stringbool().default(false),
  PROXY_ENGINE: z.enum(PROXY_ENGINES).default('undici'),
  OPENAPI_FILE: z.string().min(1).default(DEFAULT_OPENAPI_FILE),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(16 * 1024 * 1024)
    .default(64 * 1024),
  TRUST_PROXY: cidrList.default([]),
  TLS_CERT_FILE: z.string().min(1).optional(),
  TLS_KEY_FILE: z.string().min(1).optional(),
  CORS_ORIGINS: originList.default([]),
  CORS_MAX_AGE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(600),
  HEADERS_TIMEOUT_MS: ms.default(10_000),
  REQUEST_TIMEOUT_MS: ms.default(30_000),
  MAX_HEADER_SIZE: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024)
    .default(16 * 1024),
  KEEP_ALIVE_TIMEOUT_MS: ms.default(5_000),
  SEND_TIMEOUT_MS: ms.default(30_000),
  SHUTDOWN_TIMEOUT_MS: ms.default(10_000),
  ENFORCE_SUNSET: z.stringbool().default(true),
  DEPRECATION_DOC_URL: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Set by npm to the directory `npm run …` was typed in: relative file paths are taken from there.
  INIT_CWD: z.string().min(1).optional(),

  AUTH: z.enum(['required', 'off']).default('required'),
  JWKS_FILE: z.string().min(1).optional(),
  JWKS_URL: z.url({ protocol: /^https?$/ }).optional(),
  JWKS: inlineJwks.optional(),
  KEY_ISSUER: z.string().min(1).default('animal-store'),
  KEY_AUDIENCE: z.string().min(1).default('animal-store-production'),
  KEY_ALGORITHMS: algorithmList.default(['EdDSA']),
  KEY_CLOCK_TOLERANCE_SECONDS: z.coerce.number().int().min(0).max(300).default(5),
  JWKS_TIMEOUT_MS: ms.default(2_000),
  JWKS_COOLDOWN_MS: ms.default(30_000),
  JWKS_CACHE_MAX_AGE_MS: ms.default(600_000),
  AUTH_CACHE_SIZE: z.coerce.number().int().min(0).max(10_000_000).default(100_000),
  REVOCATIONS_FILE: z.string().min(1).optional(),

  RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  PLANS_FILE: z.string().min(1).default(DEFAULT_PLANS_FILE),
  RATE_LIMIT_ON_REDIS_FAILURE: z.enum(['open', 'closed', 'local']).default('local'),
  RATE_LIMIT_LOCAL_SHARE: z.coerce.number().gt(0).max(1).default(0.5),
  RATE_LIMIT_DENY_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),

  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  REDIS_CLUSTER: z.stringbool().default(false),
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_{}-]{1,64}$/)
    .default('gw'),
  REDIS_COMMAND_TIMEOUT_MS: ms.default(500),
  // 0: decisions asked in one event-loop turn share a round trip; more waits that long for others.
  REDIS_BATCH_WINDOW_MS: z.coerce.number().min(0).max(10).default(0),

  ...ObservabilityEnv,
});

/** Cross-variable rules, reported with the per-variable ones. */
export const GatewayEnvChecked = GatewayEnv.superRefine((env, ctx) => {
  if ((env.TLS_CERT_FILE === undefined) !== (env.TLS_KEY_FILE === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: [env.TLS_CERT_FILE === undefined ? 'TLS_CERT_FILE' : 'TLS_KEY_FILE'],
      message: 'TLS needs both TLS_CERT_FILE and TLS_KEY_FILE',
    });
  }
  if (env.METRICS_PORT !== undefined && env.METRICS_PORT !== 0 && env.METRICS_PORT === env.PORT) {
    ctx.addIssue({ code: 'custom', path: ['METRICS_PORT'], message: 'must differ from PORT: metrics are never served on the public port' });
  }
  const sources = (['JWKS_FILE', 'JWKS_URL', 'JWKS'] as const).filter((name) => env[name] !== undefined);
  if (env.AUTH === 'required' && sources.length !== 1) {
    ctx.addIssue({
      code: 'custom',
      path: ['AUTH'],
      message:
        sources.length === 0
          ? 'AUTH=required needs one key source: JWKS_FILE, JWKS_URL or JWKS (or set AUTH=off)'
          : `give one key source, not ${sources.join(' and ')}`,
    });
  }
});

/** The names of every variable the gateway reads (docker compose may set no other). */
export const GATEWAY_ENV_NAMES: readonly string[] = Object.keys(GatewayEnv.shape);

/** A BlockList of the trusted proxies, for `X-Forwarded-For` decisions. */
export function trustedProxies(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}
