import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().min(1);

/** Every environment variable the core reads, with its default. Nothing else reads the env. */
const EnvSchema = z
  .object({
    PORT: port.default(8081),
    HOST: z.string().min(1).default('127.0.0.1'),
    PETS_STORE: z.enum(['memory', 'redis']).default('memory'),
    PETS_REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
    PETS_REDIS_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9:_-]{1,64}$/, { error: 'must be 1 to 64 of A-Z a-z 0-9 : _ -' })
      .default('pets'),
    BODY_LIMIT_BYTES: positiveInt.max(16 * 1024 * 1024).default(64 * 1024),
    IDEMPOTENCY_TTL_SECONDS: positiveInt.default(24 * 60 * 60),
    KEEP_ALIVE_TIMEOUT_MS: positiveInt.default(65_000),
    SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .superRefine((env, ctx) => {
    if (env.PETS_STORE === 'redis' && env.PETS_REDIS_URL === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['PETS_REDIS_URL'],
        message: 'is required when PETS_STORE=redis',
      });
    }
  });

/** The names of every variable the core reads (docker compose may set no other). */
export const CORE_ENV_NAMES: readonly string[] = Object.keys(EnvSchema.shape);

export interface CoreConfig {
  readonly port: number;
  readonly host: string;
  readonly store: { readonly kind: 'memory' } | { readonly kind: 'redis'; readonly url: string; readonly prefix: string };
  readonly bodyLimitBytes: number;
  readonly idempotencyTtlSeconds: number;
  readonly keepAliveTimeoutMs: number;
  readonly shutdownTimeoutMs: number;
  readonly logLevel: string;
}

export type ConfigResult = { readonly ok: true; readonly config: CoreConfig } | { readonly ok: false; readonly problems: readonly string[] };

/** Parses the environment once; on failure lists every problem, one per variable. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): ConfigResult {
  // An empty variable means "unset", as in most shells' `VAR= cmd`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    return { ok: false, problems };
  }
  const e = parsed.data;
  const config: CoreConfig = {
    port: e.PORT,
    host: e.HOST,
    store: e.PETS_STORE === 'redis' ? { kind: 'redis', url: e.PETS_REDIS_URL as string, prefix: e.PETS_REDIS_PREFIX } : { kind: 'memory' },
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    idempotencyTtlSeconds: e.IDEMPOTENCY_TTL_SECONDS,
    keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
  };
  return { ok: true, config: deepFreeze(config) };
}

function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value)) {
    if (typeof child === 'object' && child !== null) deepFreeze(child);
  }
  return Object.freeze(value);
}

/** The configuration of this process: the one place the core reads `process.env`. */
export function loadConfigFromEnv(): ConfigResult {
  return loadConfig(process.env);
}
