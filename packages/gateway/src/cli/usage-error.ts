import { MAX_DURATION, parseDuration } from '../keyring/index.js';

/** A mistake in the command line or the environment: said with the usage text, exit 2. */
export class UsageError extends Error {}

/**
 * The duration option `--name` in milliseconds (`undefined` when not given; `0` only where
 * `zero` allows it), or a UsageError: checked before anything is written.
 */
export function durationOption(name: string, value: string | undefined, zero = false): number | undefined {
  if (value === undefined) return undefined;
  if (zero && value === '0') return 0;
  const ms = parseDuration(value);
  if (ms === undefined) throw new UsageError(`--${name} must ${zero ? 'be 0 or ' : ''}look like 90d, 12h, 30m or 1y`);
  if (ms > MAX_DURATION.ms) throw new UsageError(`--${name} must be at most ${MAX_DURATION.text}`);
  return ms;
}
