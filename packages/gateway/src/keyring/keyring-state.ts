import { existsSync } from 'node:fs';
import { z } from 'zod';
import type { JSONWebKeySet, RevocationFile } from '../auth/index.js';
import type { CustomLimits } from '../identity/index.js';
import { PlanName } from '../identity/index.js';
import { KeyringError, keyringPaths, readJson, upgradeLayout } from './keyring-files.js';

/**
 * A keyring is a directory the operator keeps (and backs up) next to the gateway:
 *   public/jwks.json     public keys, every kid that may verify (the gateway's JWKS_FILE)
 *   public/revoked.json  the deny-list of key ids (the gateway's REVOCATIONS_FILE)
 *   private/<kid>.json   private signing keys, mode 0600 in a 0700 directory
 *   state.json           issuer, audience, current signing kid, and the register of issued keys
 * `public/` is what a gateway may see: mount that directory (not its files: every write is a
 * rename, which a single-file mount would never show) and rotations and revocations reach the
 * running gateway. API keys themselves are never stored: only their id (`jti`), account, plan and dates.
 */
export interface IssuedKey {
  readonly jti: string;
  readonly sub: string;
  readonly plan: string;
  readonly kid: string;
  readonly issuedAt: string;
  readonly expiresAt: string | undefined;
  readonly limits: CustomLimits | undefined;
  /** The key this one was rerolled from (`keys reroll`): the old key is refused after its grace period. */
  readonly replaces?: string | undefined;
}

export interface State {
  readonly issuer: string;
  readonly audience: string;
  signingKid: string;
  readonly issued: IssuedKey[];
}

// What each file must hold. Loose: fields a later version adds survive a rewrite by this one.
const StateFile = z.looseObject({
  issuer: z.string(),
  audience: z.string(),
  signingKid: z.string(),
  issued: z.array(
    z.looseObject({
      jti: z.string(),
      sub: z.string(),
      plan: PlanName,
      kid: z.string(),
      issuedAt: z.string(),
      expiresAt: z.string().optional(),
      limits: z.looseObject({ minute: z.number().optional(), day: z.number().optional() }).optional(),
      replaces: z.string().optional(),
    }),
  ),
});
const RevokedFile = z.looseObject({ revoked: z.record(z.string(), z.string()) });
const JwksFile = z.looseObject({ keys: z.array(z.looseObject({ kid: z.string().optional() })) });
export const PrivateKeyFile = z.looseObject({ kty: z.string(), kid: z.string().optional() });

export function readState(dir: string): State {
  if (!existsSync(keyringPaths(dir).state)) throw new KeyringError(`no keyring in ${dir} (run: npm run keys -- init)`);
  upgradeLayout(dir);
  return readJson(keyringPaths(dir).state, StateFile, "a keyring's state (issuer, audience, signingKid, issued)") as State;
}

export const readJwks = (file: string) => readJson(file, JwksFile, 'a JWKS ({"keys": [...]})') as JSONWebKeySet;
export const readRevoked = (file: string): RevocationFile =>
  existsSync(file) ? readJson(file, RevokedFile, 'a deny-list ({"revoked": {"<jti>": "<date>"}})') : { revoked: {} };

/** The register's record of `jti`; a KeyringError (that does not repeat the id) when this keyring never issued it. */
export function issuedKey(state: State, jti: string, consequence: string): IssuedKey {
  const found = state.issued.find((key) => key.jti === jti);
  if (found === undefined) throw new KeyringError(`no key with that id was issued from this keyring (see: npm run keys -- list); ${consequence}`);
  return found;
}
