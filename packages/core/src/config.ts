import { parseEnv, settings, type Env } from '@animal-store/http-kit';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().min(1);
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const keyPrefix = z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/, { error: 'must be 1 to 64 of A-Z a-z 0-9 : _ -' });

/**
 * Every setting of the core, one line each: config field, environment variable, schema (type,
 * default, check). Nothing else reads the environment. A new setting is a line here and a row
 * of docs/configuration.md; its field follows in `CoreConfig`.
 */
const CORE = settings({
  port: ['PORT', port.default(8081)],
  host: ['HOST', z.string().min(1).default('127.0.0.1')],
  storeKind: ['PETS_STORE', z.enum(['memory', 'redis']).default('memory')],
  redisUrl: ['PETS_REDIS_URL', z.url({ protocol: /^rediss?$/ }).optional()],
  redisPrefix: ['PETS_REDIS_PREFIX', keyPrefix.default('pets')],
  bodyLimitBytes: ['BODY_LIMIT_BYTES', positiveInt.max(MAX_BODY_BYTES).default(64 * 1024)],
  idempotencyTtlSeconds: ['IDEMPOTENCY_TTL_SECONDS', positiveInt.default(24 * 60 * 60)],
  keepAliveTimeoutMs: ['KEEP_ALIVE_TIMEOUT_MS', positiveInt.default(65_000)],
  shutdownTimeoutMs: ['SHUTDOWN_TIMEOUT_MS', positiveInt.default(10_000)],
  logLevel: ['LOG_LEVEL', z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')],
});

const EnvSchema = z.object(CORE.shape);

/** The core's configuration, from its environment: the store's three settings become one `store`. */
const CoreSettings = EnvSchema.superRefine((env, ctx) => {
  if (env.PETS_STORE === 'redis' && env.PETS_REDIS_URL === undefined) {
    ctx.addIssue({ code: 'custom', path: ['PETS_REDIS_URL'], message: 'is required when PETS_STORE=redis' });
  }
}).transform((env) => {
  const { storeKind, redisUrl, redisPrefix, ...config } = CORE.read(env);
  const store = storeKind === 'redis' ? ({ kind: storeKind, url: redisUrl as string, prefix: redisPrefix } as const) : ({ kind: storeKind } as const);
  return { ...config, store };
});

/** The names of every variable the core reads (docker compose may set no other). */
export const CORE_ENV_NAMES: readonly string[] = Object.keys(EnvSchema.shape);

/** The core's configuration, deep-frozen: each field's type follows from its setting's schema. */
export type CoreConfig = z.output<typeof CoreSettings>;

export type ConfigResult = { readonly ok: true; readonly config: CoreConfig } | { readonly ok: false; readonly problems: readonly string[] };

/** Parses the environment once; on failure lists every problem, one per variable. */
export function loadConfig(env: Env): ConfigResult {
  const result = parseEnv(CoreSettings, env);
  return result.ok ? { ok: true, config: result.value } : result;
}

/** The configuration of this process: the one place the core reads `process.env`. */
export function loadConfigFromEnv(): ConfigResult {
  return loadConfig(process.env);
}
