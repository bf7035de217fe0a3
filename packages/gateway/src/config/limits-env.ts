import { fileURLToPath } from 'node:url';
import { settings } from '@animal-store/http-kit';
import { z } from 'zod';
import type { ResolveFile } from './file-paths.js';
import { isTimeZone } from '../ratelimit/calendar.js';
import { DEFAULT_MAX_ADDRESSES } from '../ratelimit/memory/index.js';
import { int } from './env-values.js';

/**
 * The plans shipped with the gateway (the interface's limits); operators point PLANS_FILE elsewhere.
 * In a directory of its own so that docker compose can mount it: a file is replaced by a rename
 * when edited, which a single-file mount would never show.
 */
export const DEFAULT_PLANS_FILE = fileURLToPath(new URL('../../plans/plans.json', import.meta.url));

/** Rate limits: with RATE_LIMITS=on, every field goes to the config's `rateLimits`. */
export const LIMITS = settings({
  mode: ['RATE_LIMITS', z.enum(['on', 'off']).default('on')],
  plansFile: ['PLANS_FILE', z.string().min(1).default(DEFAULT_PLANS_FILE)],
  onRedisFailure: ['RATE_LIMIT_ON_REDIS_FAILURE', z.enum(['open', 'closed', 'local']).default('local')],
  localShare: ['RATE_LIMIT_LOCAL_SHARE', z.coerce.number().gt(0).max(1).default(0.5)],
  onPrimaryFailure: ['RATE_LIMIT_ON_PRIMARY_FAILURE', z.enum(['open', 'closed', 'local']).default('local')],
  primaryTimeoutMs: ['RATE_LIMIT_PRIMARY_TIMEOUT_MS', int(50, 60_000).default(5000)],
  denyCacheMs: ['RATE_LIMIT_DENY_CACHE_MS', int(0, 60_000).default(1000)],
  leaseUnits: ['RATE_LIMIT_LEASE_UNITS', int(0, 1024).default(64)],
  maxAddresses: ['RATE_LIMIT_MAX_ADDRESSES', int(1000, 10_000_000).default(DEFAULT_MAX_ADDRESSES)],
  quotaTimeZone: ['QUOTA_TIME_ZONE', z.string().refine(isTimeZone, 'is not an IANA time zone (Europe/Berlin, UTC)').default('UTC')],
  shadowPlans: [
    'SHADOW_PLANS',
    z
      .string()
      .transform(
        (list) =>
          new Set(
            list
              .split(',')
              .map((name) => name.trim())
              .filter((name) => name !== ''),
          ),
      )
      .default(new Set()),
  ],
});

/** The limits slice (`rateLimits`): `{ mode: 'off' }`, or the settings with the plans file resolved. */
export function limitsConfig(env: Readonly<Record<string, unknown>>, file: ResolveFile) {
  const { mode, plansFile, ...limits } = LIMITS.read(env);
  return mode === 'off' ? ({ mode } as const) : ({ mode, ...limits, plansFile: file(plansFile) } as const);
}
