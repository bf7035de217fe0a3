import { statSync } from 'node:fs';

/**
 * A file the gateway re-reads when it changes (plans, the revocation list), looked at with one
 * `stat` per event-loop turn at most, not one per request. What it returns: the file's inode, size
 * and mtime as one string, or `missing`.
 *
 * Why a turn's first look is fresh enough for every request of that turn: a request is handled
 * after the loop woke up to read it, so its bytes arrived, and a change made before it was sent
 * was on disk, before the turn began. The look is renewed once the turn's poll phase is over
 * (`setImmediate`), so no request of a later turn sees an older stamp.
 */
export function fileStamp(file: string): () => string {
  let stamp = '';
  let fresh = false;
  const expire = () => {
    fresh = false;
  };
  return () => {
    if (fresh) return stamp;
    const stats = statSync(file, { throwIfNoEntry: false });
    stamp = stats === undefined ? 'missing' : `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
    fresh = true;
    setImmediate(expire);
    return stamp;
  };
}
