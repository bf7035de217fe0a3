import { hash } from 'node:crypto';
import type { Identity } from '../identity/index.js';

/**
 * Identities of keys whose signature was already checked, so a known key costs a hash and a map
 * lookup instead of a signature verification. Bounded (least recently used goes first), keyed by
 * a SHA-256 of the token (the token itself is never kept), and an entry is never served past the
 * key's `exp`. Revocation is not cached: it is checked on every request.
 */
export class VerifiedKeyCache {
  readonly #entries = new Map<string, Identity>();

  constructor(
    readonly capacity: number,
    private readonly now: () => number,
  ) {}

  static digest(token: string): string {
    return hash('sha256', token, 'base64url');
  }

  get(digest: string): Identity | undefined {
    const identity = this.#entries.get(digest);
    if (identity === undefined) return undefined;
    this.#entries.delete(digest);
    if (identity.expiresAt !== undefined && this.now() >= identity.expiresAt) return undefined;
    this.#entries.set(digest, identity); // most recently used goes to the back
    return identity;
  }

  set(digest: string, identity: Identity): void {
    if (this.capacity === 0) return;
    this.#entries.delete(digest);
    this.#entries.set(digest, identity);
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  get size(): number {
    return this.#entries.size;
  }
}
