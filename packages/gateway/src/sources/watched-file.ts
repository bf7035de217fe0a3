import { publishFileReloadFailed } from '../events/index.js';
import { fileStamp } from './file-stamp.js';

/** A file the gateway re-reads while it runs (plans, the revocation list, the JWKS). */
export interface WatchedFile<T> {
  /** The content of the last good read; looks at the file first (see `fileStamp` for how often). */
  current(): T;
  /** Goes up by one each time a changed file was read successfully. */
  version(): number;
}

export interface WatchOptions {
  /** The setting that named the file (`PLANS_FILE`), for the `file reload failed` event. */
  readonly setting: string;
  /** Looks at the file at most this often on `now`'s clock (0: as often as `fileStamp` allows). */
  readonly minIntervalMs?: number;
  readonly now?: () => number;
}

/**
 * The one watcher of the files that change under a running gateway. The first read happens here
 * and throws as `read` does (a wrong path must stop the start, never mean "empty"). Later, a file
 * that changed is read again; one that disappeared or cannot be read (caught mid-write, invalid)
 * keeps the last good content, and the failure is published once per version of the file, so an
 * operator sees it in the logs and metrics.
 */
export function watchFile<T>(file: string, read: (file: string) => T, options: WatchOptions): WatchedFile<T> {
  const look = fileStamp(file);
  const now = options.now ?? Date.now;
  const minIntervalMs = options.minIntervalMs ?? 0;
  let stamp = look();
  let value = read(file);
  let version = 0;
  let lookedAt = now();

  function current(): T {
    if (minIntervalMs > 0) {
      const at = now();
      if (at - lookedAt < minIntervalMs) return value;
      lookedAt = at;
    }
    const next = look();
    if (next === stamp || next === 'missing') return value;
    stamp = next;
    try {
      value = read(file);
      version += 1;
    } catch (error) {
      publishFileReloadFailed({ setting: options.setting, file, error });
    }
    return value;
  }
  return { current, version: () => (current(), version) };
}
