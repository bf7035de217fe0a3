import { parseEnv, type Env } from '@animal-store/http-kit';
import { z } from 'zod';
import { AUTH } from './auth-env.js';
import { fileResolver } from './file-paths.js';
import { DEFAULT_PLANS_FILE } from './limits-env.js';
import { REDIS } from './redis-env.js';

/**
 * The environment of the `keys` CLI (read once, like the gateway's). Its issuer, audience and
 * Redis settings are the gateway's own declarations, so that the two cannot drift apart.
 */
const CliEnv = z.object({
  KEYS_DIR: z.string().min(1).default('keys'),
  KEY_ISSUER: AUTH.shape.KEY_ISSUER,
  KEY_AUDIENCE: AUTH.shape.KEY_AUDIENCE,
  REDIS_URL: REDIS.shape.REDIS_URL,
  REDIS_CLUSTER: REDIS.shape.REDIS_CLUSTER,
  REDIS_PREFIX: REDIS.shape.REDIS_PREFIX,
  // The plans a key may name: those of the file the gateway reads (keys issue, keys reroll).
  PLANS_FILE: z.string().min(1).default(DEFAULT_PLANS_FILE),
});
export type CliEnv = z.output<typeof CliEnv>;

/** Parses the CLI's environment: the values, or every problem, one line each. */
export function loadCliEnv(env: Env): { ok: true; env: CliEnv } | { ok: false; problems: string[] } {
  const result = parseEnv(CliEnv, env);
  if (!result.ok) return result;
  // A relative PLANS_FILE is taken from where `npm run` was typed, as the gateway takes it.
  return { ok: true, env: { ...result.value, PLANS_FILE: fileResolver(env)(result.value.PLANS_FILE) } };
}

/** The CLI's own environment, read from `process.env` when a command runs. */
export const CLI_ENV = { load: () => loadCliEnv(process.env) };
