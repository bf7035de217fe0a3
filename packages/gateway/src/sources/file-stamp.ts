import { statSync } from 'node:fs';

/*
 * Files the gateway re-reads when they change (plans, the revocation list) are looked at for every
 * request, with one `stat` per event-loop turn shared by the requests of that turn.
 *
 * Why that is fresh enough: the first request of a turn opens it (`requestArrived`). Each later
 * request handled in the turn was read from the same wake-up of the loop, so its bytes had
 * arrived before the turn's first `stat`. A change saved before a request was sent is therefore
 * on disk at that `stat`. A look taken outside a request turn (a timer, say) is never reused.
 *
 * The one exception: when more than 1,024 sockets are ready at once, libuv polls again within the
 * turn, and a request read in that second poll may use a `stat` from a few microseconds earlier.
 */
let turn = 0;
let turnOpen = false;
const closeTurn = () => {
  turnOpen = false;
};

/** Called as each request starts: the first one of an event-loop turn opens a new turn. */
export function requestArrived(): void {
  if (turnOpen) return;
  turnOpen = true;
  turn += 1;
  setImmediate(closeTurn);
}

/** The current identity of `file` (inode, size, mtime), or `missing`; see above for how often it looks. */
export function fileStamp(file: string): () => string {
  let stamp = '';
  let lookedIn = -1;
  return () => {
    if (turnOpen && lookedIn === turn) return stamp;
    stamp = statStamp(file);
    lookedIn = turnOpen ? turn : -1;
    return stamp;
  };
}

/** The identity of `file` now (inode, size, mtime), or `missing`: one `stat`, never shared. */
export function statStamp(file: string): string {
  const stats = statSync(file, { throwIfNoEntry: false });
  return stats === undefined ? 'missing' : `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

/** When the file a stamp of `fileStamp` records was last written (ms since the epoch; `NaN` for `missing`). */
export const stampModified = (stamp: string): number => (stamp === 'missing' ? Number.NaN : Number(stamp.split(':')[2]));

/** The size in bytes that a stamp of `fileStamp` records (0 for `missing`). */
export const stampSize = (stamp: string): number => (stamp === 'missing' ? 0 : Number(stamp.split(':')[1]));
