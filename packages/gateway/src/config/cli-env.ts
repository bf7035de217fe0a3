import { z } from 'zod';

/** The environment of the `keys` CLI (read once, like the gateway's). */
const CliEnv = z.object({
  KEYS_DIR: z.string().min(1).default('keys'),
  KEY_ISSUER: z.string().min(1).default('animal-store'),
  KEY_AUDIENCE: z.string().min(1).default('animal-store-production'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  REDIS_CLUSTER: z.stringbool().default(false),
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_{}-]{1,64}$/)
    .default('gw'),
});
export type CliEnv = z.infer<typeof CliEnv>;

export function loadCliEnv(env: Readonly<Record<string, string | undefined>>): { ok: true; env: CliEnv } | { ok: false; problems: string[] } {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = CliEnv.safeParse(present);
  if (!parsed.success) return { ok: false, problems: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) };
  return { ok: true, env: parsed.data };
}

export const CLI_ENV = { load: () => loadCliEnv(process.env) };
