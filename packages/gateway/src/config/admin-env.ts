import { settings } from '@animal-store/http-kit';
import { z } from 'zod';
import type { ResolveFile } from './file-paths.js';

/**
 * The admin API and console, on the admin listener (`METRICS_PORT`): on only with a token file.
 * The config's `admin`, with both paths resolved.
 */
export const ADMIN = settings({
  /** `name:token` lines (see `admin/admin-tokens.ts`): read by the primary at start and at each reload. */
  tokenFile: ['ADMIN_TOKEN_FILE', z.string().min(1).optional()],
  /** The deny-list file the admin API writes its revocations to; unset: `REVOCATIONS_FILE`. */
  revocationsFile: ['ADMIN_REVOCATIONS_FILE', z.string().min(1).optional()],
});

/**
 * The admin slice: `undefined` without ADMIN_TOKEN_FILE. `revocationsFile` is the file revocations
 * are written to: ADMIN_REVOCATIONS_FILE, else the deny-list file the gateway reads (`undefined`
 * when it reads none: the admin API then cannot revoke).
 */
export function adminConfig(env: Readonly<Record<string, unknown>>, file: ResolveFile, denyList: string | undefined) {
  const { tokenFile, revocationsFile } = ADMIN.read(env);
  if (tokenFile === undefined) return undefined;
  return { tokenFile: file(tokenFile), revocationsFile: file(revocationsFile) ?? denyList } as const;
}
