import type { ApiKeyToSign } from '@animal-store/gateway';
import { drawOrder, type AccountSpread, type SpreadName } from './accounts.js';
import { writeKeyRotation, type KeyRotation } from './key-files.js';

/** A spread's keys, rotated per request: the gateway's (EdDSA), and the same claims signed for HAProxy where it verifies another key. */
export interface SpreadKeys {
  readonly spread: AccountSpread;
  readonly gateway: KeyRotation;
  /** For the HAProxy JWT references: the same accounts, in the same order. */
  readonly haproxy: KeyRotation | undefined;
}

export type SpreadKeySets = Partial<Record<SpreadName, SpreadKeys>>;

export interface SpreadSigners {
  /** The claims of account `sub`'s key on `plan`. */
  readonly claimsOf: (sub: string, plan: string) => ApiKeyToSign;
  readonly gateway: (claims: ApiKeyToSign) => Promise<string>;
  /** HAProxy's signer, where it runs (its own ES256 key where it cannot verify EdDSA). */
  readonly haproxy?: (claims: ApiKeyToSign) => Promise<string>;
}

/**
 * Signs a key per account of each spread of many accounts (`one` keeps the bench's one key, sent
 * as a fixed header), draws the order the load generators send them in (`draws` requests before
 * it repeats), and writes both under `dir` for wrk (`key-files.ts`).
 */
export async function makeSpreadKeys(dir: string, spreads: readonly AccountSpread[], signers: SpreadSigners, draws: number): Promise<SpreadKeySets> {
  const sets: SpreadKeySets = {};
  for (const spread of spreads) {
    if (spread.name === 'one') continue;
    const claims = Array.from({ length: spread.accounts }, (_, i) => signers.claimsOf(`${spread.name}-${i}`, spread.plan));
    const order = drawOrder(spread, draws);
    const signAll = async (sign: (claims: ApiKeyToSign) => Promise<string>) => {
      const keys: string[] = [];
      // In slices: 100,000 signatures at once would hold as many promises and imported keys.
      for (let i = 0; i < claims.length; i += 5000) keys.push(...(await Promise.all(claims.slice(i, i + 5000).map(sign))));
      return keys;
    };
    const gateway = writeKeyRotation(dir, `${spread.name}-gateway`, await signAll(signers.gateway), order);
    const haproxy = signers.haproxy === undefined ? undefined : writeKeyRotation(dir, `${spread.name}-haproxy`, await signAll(signers.haproxy), order);
    sets[spread.name] = { spread, gateway, haproxy };
  }
  return sets;
}
