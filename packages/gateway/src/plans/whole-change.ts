import { stampModified, statStamp } from '../sources/file-stamp.js';

/**
 * How long a changed plans file must have stood still before it is read as whole: a writer that
 * writes it in place, in several parts, leaves it torn in between, and a torn file may parse and
 * validate (an account's 1000 written over with 50 reads 5000 until the rest is written). 100 ms:
 * more than a writer's pause between its parts (tens of ms), and a request that finds a fresh
 * change waits for it at most about this long.
 */
export const SETTLE_MS = 100;

/** The settle's clock and timer: the wall clock (a file's mtime is on it) and `setTimeout`; tests inject both. */
export interface SettleClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const REAL_CLOCK: SettleClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
};

/** What was read of a version of the file, and the stamp it is whole at; `missing`: the file is gone. */
export type WholeRead<T> = { readonly stamp: string; readonly read: T } | { readonly stamp: 'missing' };

/** Some file systems keep an mtime to the second: a last write older than this is surely over. */
const COARSE_MTIME_MS = 2000;

/** True when the last write of the version `stamp` stands for is long past: read once, it is whole. */
export const longStill = (stamp: string, clock: SettleClock, settleMs: number): boolean => clock.now() - stampModified(stamp) >= settleMs + COARSE_MTIME_MS;

/**
 * Reads `file` once it is whole: two reads `settleMs` apart found the same stamp (inode, size,
 * mtime) and the same content (`identity` of what was read; the stamp alone misses a write of the
 * same size within one tick of a coarse mtime), and the file did not change while either read
 * it. A version whose last write is long past (`longStill`) is whole at its first read. `seen` is
 * the stamp that showed the change.
 */
export async function readWhole<T>(
  file: string,
  seen: string,
  read: () => T | Promise<T>,
  identity: (value: T) => string,
  clock: SettleClock,
  settleMs: number,
): Promise<WholeRead<T>> {
  let first: { readonly stamp: string; readonly id: string; readonly at: number } | undefined;
  for (;;) {
    if (seen === 'missing') return { stamp: 'missing' };
    const value = await read();
    const after = statStamp(file);
    if (after !== seen) {
      seen = after;
      continue;
    }
    const id = identity(value);
    if (first === undefined || first.stamp !== seen || first.id !== id) first = { stamp: seen, id, at: clock.now() };
    if (longStill(seen, clock, settleMs) || clock.now() - first.at >= settleMs) return { stamp: seen, read: value };
    await clock.sleep(settleMs - (clock.now() - first.at));
    seen = statStamp(file);
  }
}
