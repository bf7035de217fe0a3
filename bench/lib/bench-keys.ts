import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSigningKey, signApiKey, type ApiKeyToSign, type JWK } from '@animal-store/gateway';
import { UNIFORM_PLAN_MINUTE } from './accounts.js';

/**
 * The bench's keys, written into `dir`: a JWKS, a deny-list file, plans that never refuse, one
 * key, one over its limit on the shipped plans, `manyKeyCount` keys of as many accounts, and
 * `freeKeyCount` keys on the free plan, each of an account of its own (the bursts, lib/bursts.ts).
 */
export async function makeKeys(
  dir: string,
  manyKeyCount: number,
  freeKeyCount = 0,
): Promise<{
  jwksFile: string;
  publicJwk: JWK;
  revocationsFile: string;
  oneKey: string;
  oneKeyClaims: ApiKeyToSign;
  rejectedKey: string;
  manyKeys: string[];
  freeKeys: string[];
  /** The claims of an account's key on `plan`, as `oneKey`'s (for a reference that signs them again). */
  claimsOf: (sub: string, plan: string) => ApiKeyToSign;
  /** Signs `claims` with the gateway's key. */
  sign: (claims: ApiKeyToSign) => Promise<string>;
}> {
  const { privateJwk, publicJwk } = await generateSigningKey();
  const jwksFile = join(dir, 'jwks.json');
  writeFileSync(jwksFile, JSON.stringify({ keys: [publicJwk] }));
  // A deny-list file, as a single instance without Redis runs: its revocation check is measured too.
  const revocationsFile = join(dir, 'revoked.json');
  writeFileSync(revocationsFile, JSON.stringify({ revoked: { 'some-old-key': new Date().toISOString() } }));
  // Limits high enough never to refuse: the limit check is measured, not refusals. `pro` is the
  // plan of the 2,000 accounts of issue 40 (accounts.ts): 1,000 a minute, under the 1,024 a window
  // below which no lease is granted, never reached in a run (an account gets a few hundred a minute).
  const high = { minute: 1_000_000_000, day: 1_000_000_000 };
  const underLeases = { minute: UNIFORM_PLAN_MINUTE, day: 1_000_000_000 };
  writeFileSync(
    join(dir, 'plans.json'),
    JSON.stringify({ plans: { free: high, pro: underLeases, business: high, enterprise: high }, anonymous: high, accounts: {} }),
  );
  // The same plans with every layer of issue 21 on the benched operation: a monthly quota, a cost,
  // and a ceiling for all callers (all never reached), to measure what layers cost over the plan.
  const layered = { ...high, month: 1_000_000_000, cost: { listPets: 2 } };
  writeFileSync(
    join(dir, 'plans-layered.json'),
    JSON.stringify({
      plans: { free: layered, pro: layered, business: layered, enterprise: layered },
      operations: { listPets: high },
      anonymous: high,
      accounts: {},
    }),
  );
  const claims = (sub: string, jti: string): ApiKeyToSign => ({
    issuer: 'animal-store',
    audience: 'animal-store-production',
    subject: sub,
    keyId: jti,
    plan: 'business',
    issuedAt: Date.now(),
  });
  const sign = (sub: string, jti: string) => signApiKey(privateJwk, claims(sub, jti));
  const oneKeyClaims = claims('bench', 'bench-one');
  const oneKey = await signApiKey(privateJwk, oneKeyClaims);
  const rejectedKey = await signApiKey(privateJwk, {
    issuer: 'animal-store',
    audience: 'animal-store-production',
    subject: 'over-limit',
    keyId: 'bench-rejected',
    plan: 'free',
    issuedAt: Date.now(),
  });
  const manyKeys = await Promise.all(Array.from({ length: manyKeyCount }, (_, i) => sign(`account-${i}`, `bench-${i}`)));
  const freeKeys = await Promise.all(
    Array.from({ length: freeKeyCount }, (_, i) => signApiKey(privateJwk, { ...claims(`burst-${i}`, `bench-burst-${i}`), plan: 'free' })),
  );
  const claimsOf = (sub: string, plan: string): ApiKeyToSign => ({ ...claims(sub, `bench-${sub}`), plan });
  const signClaims = (toSign: ApiKeyToSign) => signApiKey(privateJwk, toSign);
  return { jwksFile, publicJwk, revocationsFile, oneKey, oneKeyClaims, rejectedKey, manyKeys, freeKeys, claimsOf, sign: signClaims };
}
