import { watchFile } from '../sources/watched-file.js';
import { readDenyList } from './deny-list-file.js';

/** The deny-list of key ids (`jti`), consulted on every request. */
export interface RevocationList {
  isRevoked(keyId: string): Promise<boolean>;
  close(): void;
}

/**
 * Revocation cannot be checked: Redis did not answer and no copy of the deny-list was ever loaded.
 * The request gets 503 auth_unavailable: an unknown deny-list must not let every key through.
 */
export class RevocationsUnavailableError extends Error {
  constructor(cause: unknown) {
    super('the deny-list cannot be checked', { cause });
    this.name = 'RevocationsUnavailableError';
  }
}

/** No deny-list at all (no file configured, no Redis). */
export const NO_REVOCATIONS: RevocationList = { isRevoked: async () => false, close() {} };

/**
 * Every list at once: a key is revoked when any of them says so. The operator's file (the
 * keyring's `public/revoked.json`) is asked first: it answers without a round trip, and it is
 * what keeps a revocation after Redis loses its data. Redis is then asked for what other hosts
 * revoked; an unavailable Redis still fails closed as it does alone.
 */
export function anyOfRevocations(lists: readonly RevocationList[]): RevocationList {
  if (lists.length === 0) return NO_REVOCATIONS;
  if (lists.length === 1) return lists[0] as RevocationList;
  return {
    async isRevoked(keyId) {
      for (const list of lists) if (await list.isRevoked(keyId)) return true;
      return false;
    },
    close() {
      for (const list of lists) list.close();
    },
  };
}

/**
 * A deny-list file (the keyring's `public/revoked.json`), alone or beside Redis's. The file is looked at for every check (one
 * `stat` per event-loop turn, see `watchFile`; re-read only when it changed), so a revocation
 * applies from the very next request. A key is refused from the date the file gives it: at once
 * for a revocation, at the end of its grace period for a rerolled key (`keys reroll --grace`);
 * only a key found in the file costs a look at the clock. The file must be readable at start (the
 * gateway refuses to start otherwise: a wrong path must not mean "nothing is revoked"). Later, a
 * file that disappears or is caught mid-write keeps the last list: deleting it must not lift every
 * revocation (an empty `{"revoked": {}}` does that on purpose). `setting` names it in messages.
 */
export function createFileRevocations(file: string, now: () => number = Date.now, setting = 'REVOCATIONS_FILE'): RevocationList {
  let watched;
  try {
    watched = watchFile(file, readDenyList, { setting });
  } catch (error) {
    throw new Error(`${setting} ${file} cannot be read as a deny-list (${(error as Error).message}); the keyring's revoked.json, or {"revoked": {}} for none`);
  }
  const list = watched;
  return {
    async isRevoked(keyId) {
      const from = list.current().get(keyId);
      return from !== undefined && from <= now();
    },
    close() {},
  };
}
