import { z } from 'zod';
import { ADMIN, adminConfig } from './admin-env.js';
import { AUTH_ENV, authConfig } from './auth-env.js';
import { fileResolver, PATHS } from './file-paths.js';
import { timeoutProblems } from './timeout-rules.js';
import { LIMITS, limitsConfig } from './limits-env.js';
import { OBSERVABILITY_ENV, observabilityConfig } from './observability-env.js';
import { PROCESS, processConfig } from './process-env.js';
import { REDIS, redisConfig } from './redis-env.js';
import { SERVER_ENV, serverConfig } from './server-env.js';
import { UPSTREAM } from './upstream-env.js';

export { trustedProxies } from './trusted-proxies.js';

/**
 * Every environment variable the gateway reads, with its default: the sections' settings, each
 * declared once in its `*-env.ts`. Nothing else reads the env.
 */
export const GatewayEnv = z.object({
  ...SERVER_ENV,
  ...PATHS.shape,
  ...UPSTREAM.shape,
  ...AUTH_ENV,
  ...LIMITS.shape,
  ...REDIS.shape,
  ...OBSERVABILITY_ENV,
  ...ADMIN.shape,
  ...PROCESS.shape,
});

/** Cross-variable rules, reported with the per-variable ones. */
export const GatewayEnvChecked = GatewayEnv.superRefine((env, ctx) => {
  for (const problem of timeoutProblems(env)) ctx.addIssue({ code: 'custom', ...problem });
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
  if (env.ADMIN_TOKEN_FILE !== undefined && env.METRICS_PORT === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['ADMIN_TOKEN_FILE'],
      message: 'needs METRICS_PORT: the admin API is served on the admin listener, never on the public port',
    });
  }
  if (env.ADMIN_REVOCATIONS_FILE !== undefined && env.ADMIN_TOKEN_FILE === undefined) {
    ctx.addIssue({ code: 'custom', path: ['ADMIN_REVOCATIONS_FILE'], message: "is the admin API's: it needs ADMIN_TOKEN_FILE" });
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

/** The gateway's configuration, out of a valid environment: each slice from its section. */
export const GatewaySettings = GatewayEnvChecked.transform((env) => {
  const file = fileResolver(env);
  const auth = authConfig(env, file);
  return {
    ...serverConfig(env, file),
    upstream: UPSTREAM.read(env),
    auth,
    admin: adminConfig(env, file, auth.mode === 'off' ? undefined : auth.revocationsFile),
    rateLimits: limitsConfig(env, file),
    redis: redisConfig(env),
    ...observabilityConfig(env),
    ...processConfig(env, file),
  } as const;
});

/** The names of every variable the gateway reads (docker compose may set no other). */
export const GATEWAY_ENV_NAMES: readonly string[] = Object.keys(GatewayEnv.shape);
