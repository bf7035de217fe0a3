import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { settings } from '@animal-store/http-kit';
import { z } from 'zod';
import type { ResolveFile } from './file-paths.js';
import { algorithmList, httpUrl, inlineJwks, int, ms } from './env-values.js';

/** Key checks: with AUTH=required, every field but `mode` goes to the config's `auth`. */
export const AUTH = settings({
  mode: ['AUTH', z.enum(['required', 'off']).default('required')],
  issuer: ['KEY_ISSUER', z.string().min(1).default('animal-store')],
  audience: ['KEY_AUDIENCE', z.string().min(1).default('animal-store-production')],
  algorithms: ['KEY_ALGORITHMS', algorithmList.default(['EdDSA'])],
  clockToleranceSeconds: ['KEY_CLOCK_TOLERANCE_SECONDS', int(0, 300).default(5)],
  cacheSize: ['AUTH_CACHE_SIZE', int(0, 10_000_000).default(100_000)],
  /** `none`: Redis is the only deny-list; unset: the keyring's, beside `JWKS_FILE`, if any. */
  revocationsFile: ['REVOCATIONS_FILE', z.string().min(1).optional()],
});

/** Where the public keys come from: exactly one of the three (checked in `env-schema.ts`). */
export const KEY_SOURCES = settings({
  file: ['JWKS_FILE', z.string().min(1).optional()],
  url: ['JWKS_URL', httpUrl.transform((href) => new URL(href)).optional()],
  inline: ['JWKS', inlineJwks.optional()],
});

/** The remote key set's timings, with `JWKS_URL`: they go into its `keys`. */
export const REMOTE_KEYS = settings({
  timeoutMs: ['JWKS_TIMEOUT_MS', ms.default(2_000)],
  cooldownMs: ['JWKS_COOLDOWN_MS', ms.default(30_000)],
  cacheMaxAgeMs: ['JWKS_CACHE_MAX_AGE_MS', ms.default(600_000)],
});

/** The auth section's variables. */
export const AUTH_ENV = { ...AUTH.shape, ...KEY_SOURCES.shape, ...REMOTE_KEYS.shape };

/** The auth slice: `{ mode: 'off' }`, or the key checks with their `keys`. */
export function authConfig(env: Readonly<Record<string, unknown>>, file: ResolveFile) {
  const { mode, revocationsFile, ...checks } = AUTH.read(env);
  if (mode === 'off') return { mode } as const;
  const keys = keysConfig(env, file);
  // `none` is an explicit choice, never the default.
  const revocations = revocationsFile === 'none' ? undefined : (file(revocationsFile) ?? keyringDenyList(keys.kind === 'file' ? keys.path : undefined));
  return { mode, keys, ...checks, revocationsFile: revocations } as const;
}

function keysConfig(env: Readonly<Record<string, unknown>>, file: ResolveFile) {
  const { file: path, url, inline } = KEY_SOURCES.read(env);
  if (path !== undefined) return { kind: 'file', path: file(path) } as const;
  if (inline !== undefined) return { kind: 'inline', jwks: inline } as const;
  // The schema's check leaves the URL as the one source.
  return { kind: 'remote', url: url as URL, ...REMOTE_KEYS.read(env) } as const;
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
