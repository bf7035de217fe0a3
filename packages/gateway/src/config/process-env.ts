import { settings } from '@animal-store/http-kit';
import { z } from 'zod';
import type { ResolveFile } from './file-paths.js';

/** The most workers a gateway runs: more than that is a typo, not a plan (and `auto` stops there too). */
export const MAX_WORKERS = 64;

/** `auto`, or a whole number of workers from 1 to `MAX_WORKERS`. */
const workerCount = z.string().transform((value, ctx) => {
  const text = value.trim();
  if (text === 'auto') return 'auto' as const;
  const count = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isInteger(count) && count >= 1 && count <= MAX_WORKERS) return count;
  ctx.addIssue({ code: 'custom', message: `must be auto or a whole number from 1 to ${MAX_WORKERS}, not "${value}"` });
  return z.NEVER;
});

/** The gateway's processes: how many workers serve, and where settings that change without a restart are. */
export const PROCESS = settings({
  workers: ['WORKERS', workerCount.default('auto')],
  /** A file of `NAME=value` lines over the environment, read at start and at every SIGHUP. */
  settingsFile: ['SETTINGS_FILE', z.string().min(1).optional()],
});

/** The process slice: `workers` (`auto` is resolved by the primary, which knows the machine) and `settingsFile`. */
export function processConfig(env: Readonly<Record<string, unknown>>, file: ResolveFile) {
  const { workers, settingsFile } = PROCESS.read(env);
  return { workers, settingsFile: file(settingsFile) };
}
