import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { KeyringError, keyringPaths, readJson, upgradeLayout, writeJson } from './keyring-files.js';
import {
  addToDenyList,
  createFixedKeyVerifier,
  generateSigningKey,
  identityOf,
  InvalidKeyError,
  PLANS,
  signApiKey,
  type CustomLimits,
  type JSONWebKeySet,
  type JWK,
  type Plan,
  type RevocationFile,
} from '../auth/index.js';

export { KeyringError };

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
  readonly plan: Plan;
  readonly kid: string;
  readonly issuedAt: string;
  readonly expiresAt: string | undefined;
  readonly limits: CustomLimits | undefined;
  /** The key this one was rerolled from (`keys reroll`): the old key is refused after its grace period. */
  readonly replaces?: string | undefined;
}

interface State {
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
      plan: z.enum(PLANS),
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
const PrivateKeyFile = z.looseObject({ kty: z.string(), kid: z.string().optional() });

function readState(dir: string): State {
  if (!existsSync(keyringPaths(dir).state)) throw new KeyringError(`no keyring in ${dir} (run: npm run keys -- init)`);
  upgradeLayout(dir);
  return readJson(keyringPaths(dir).state, StateFile, "a keyring's state (issuer, audience, signingKid, issued)") as State;
}

const readJwks = (file: string) => readJson(file, JwksFile, 'a JWKS ({"keys": [...]})') as JSONWebKeySet;
const readRevoked = (file: string): RevocationFile =>
  existsSync(file) ? readJson(file, RevokedFile, 'a deny-list ({"revoked": {"<jti>": "<date>"}})') : { revoked: {} };

async function addSigningKey(dir: string): Promise<string> {
  const p = keyringPaths(dir);
  const { privateJwk, publicJwk } = await generateSigningKey();
  const kid = publicJwk.kid as string;
  mkdirSync(p.privateDir, { recursive: true, mode: 0o700 });
  mkdirSync(p.publicDir, { recursive: true, mode: 0o755 });
  writeJson(p.privateKey(kid), privateJwk, 0o600);
  chmodSync(p.privateKey(kid), 0o600);
  const jwks: JSONWebKeySet = existsSync(p.jwks) ? readJwks(p.jwks) : { keys: [] };
  writeJson(p.jwks, { keys: [...jwks.keys, publicJwk] });
  return kid;
}

/** Creates a keyring with one Ed25519 signing key. Refuses to overwrite one unless `force`. */
export async function initKeyring(dir: string, options: { issuer: string; audience: string; force?: boolean }): Promise<string> {
  const p = keyringPaths(dir);
  if (existsSync(p.state) && options.force !== true) throw new KeyringError(`${dir} already holds a keyring (use --force to replace it)`);
  rmSync(p.privateDir, { recursive: true, force: true });
  rmSync(p.jwks, { force: true });
  rmSync(join(dir, 'jwks.json'), { force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const kid = await addSigningKey(dir);
  writeJson(p.state, { issuer: options.issuer, audience: options.audience, signingKid: kid, issued: [] } satisfies State);
  writeJson(p.revoked, { revoked: {} } satisfies RevocationFile);
  return kid;
}

export interface IssueRequest {
  readonly plan: Plan;
  readonly sub: string;
  readonly ttlMs?: number | undefined;
  readonly limits?: CustomLimits | undefined;
  readonly now?: number;
  /** The key this one replaces (`rerollKey`), recorded in the register. */
  readonly replaces?: string | undefined;
}

/** Signs a new API key with the current signing key and records it (not the key) in the register. */
export async function issueKey(dir: string, request: IssueRequest): Promise<{ token: string; record: IssuedKey }> {
  if (request.limits !== undefined && request.plan !== 'enterprise') throw new KeyringError('custom limits (--minute, --day) are for the enterprise plan only');
  const state = readState(dir);
  const now = request.now ?? Date.now();
  const jti = randomBytes(12).toString('base64url');
  const expiresAt = request.ttlMs === undefined ? undefined : now + request.ttlMs;
  const privateJwk = readJson(keyringPaths(dir).privateKey(state.signingKid), PrivateKeyFile, 'a private JWK') as JWK;
  const token = await signApiKey(privateJwk, {
    issuer: state.issuer,
    audience: state.audience,
    subject: request.sub,
    keyId: jti,
    plan: request.plan,
    issuedAt: now,
    expiresAt,
    limits: request.limits,
  });
  const record: IssuedKey = {
    jti,
    sub: request.sub,
    plan: request.plan,
    kid: state.signingKid,
    issuedAt: new Date(now).toISOString(),
    expiresAt: expiresAt === undefined ? undefined : new Date(expiresAt).toISOString(),
    limits: request.limits,
    ...(request.replaces === undefined ? {} : { replaces: request.replaces }),
  };
  writeJson(keyringPaths(dir).state, { ...state, issued: [...state.issued, record] });
  return { token, record };
}

/**
 * Adds `jti` to the deny-list file, refused from `from` (`now` unless a grace period puts it
 * later). Refuses ids this keyring never issued, without repeating the id (it is what was typed,
 * maybe a secret part of a key). A key revoked before keeps its first date unless this one is
 * earlier (see `addToDenyList`): `already` says so, and the file is left as it was.
 */
export function revokeKey(dir: string, jti: string, now = Date.now(), from = now): { revokedAt: string; already: boolean } {
  issuedKey(readState(dir), jti, 'nothing was revoked');
  const file = keyringPaths(dir).revoked;
  // Read as the keyring reads it first: a broken file gets the keyring's message, which says what it should hold.
  readRevoked(file);
  const { refusedFrom, already } = addToDenyList(file, jti, from);
  return { revokedAt: refusedFrom, already };
}

/** The register's record of `jti`; a KeyringError (that does not repeat the id) when this keyring never issued it. */
function issuedKey(state: State, jti: string, consequence: string): IssuedKey {
  const found = state.issued.find((key) => key.jti === jti);
  if (found === undefined) throw new KeyringError(`no key with that id was issued from this keyring (see: npm run keys -- list); ${consequence}`);
  return found;
}

/**
 * Rerolls `jti` (Unkey's `rerollKey`): a new key for the same account, plan and signed limits,
 * valid as long as the old one was (or `ttlMs`), and the old key refused from `graceMs` from now
 * (0: at once) through the deny-list file, dated then. Keys are JWTs, whose expiry cannot change
 * once issued: the deny-list's date is what ends the old one, at no cost per request.
 */
export async function rerollKey(
  dir: string,
  jti: string,
  options: { readonly graceMs: number; readonly ttlMs?: number | undefined; readonly now?: number },
): Promise<{ token: string; record: IssuedKey; refusedFrom: string }> {
  const now = options.now ?? Date.now();
  const old = issuedKey(readState(dir), jti, 'nothing was rerolled');
  const lifetime = old.expiresAt === undefined ? undefined : Date.parse(old.expiresAt) - Date.parse(old.issuedAt);
  const { token, record } = await issueKey(dir, {
    plan: old.plan,
    sub: old.sub,
    limits: old.limits,
    ttlMs: options.ttlMs ?? lifetime,
    now,
    replaces: jti,
  });
  const { revokedAt } = revokeKey(dir, jti, now, now + options.graceMs);
  return { token, record, refusedFrom: revokedAt };
}

/** The one algorithm a keyring signs with (generateSigningKey's): a key under any other is not its own. */
const KEYRING_ALGORITHMS = ['EdDSA'];

/**
 * The id (`jti`) of `token` once it is verified as a key of this keyring: signed by one of its
 * public keys (public/jwks.json), for its issuer and audience, `typ` apikey+jwt, unexpired; the
 * gateway's own verification. A token signed elsewhere, `alg: none` or for another audience says
 * whatever id it likes: a KeyringError, which names neither the token nor the id it carries.
 */
export async function verifiedKeyIdOf(dir: string, token: string, now = Date.now()): Promise<string> {
  const state = readState(dir);
  const jwksFile = keyringPaths(dir).jwks;
  const verifier = createFixedKeyVerifier(
    { kind: 'jwks', jwks: readJwks(jwksFile) },
    { issuer: state.issuer, audience: state.audience, algorithms: KEYRING_ALGORITHMS, clockToleranceSeconds: 0, now: () => now },
  );
  let payload: unknown;
  try {
    payload = await verifier.verify(token);
  } catch (error) {
    if (!(error instanceof InvalidKeyError)) throw error;
    throw new KeyringError(
      `that is not a valid key of this keyring (${jwksFile}, issuer ${state.issuer}, audience ${state.audience}): ${error.reason}. Nothing was revoked; an expired key or one of a retired kid is refused by gateways already, and can still be revoked by its id (see: npm run keys -- list)`,
    );
  }
  const keyId = identityOf(payload)?.keyId;
  if (keyId === undefined) throw new KeyringError('that key verifies but does not carry the claims of an API key (sub, jti, plan); nothing was revoked');
  return keyId;
}

/** Why an issued key no longer verifies, or `undefined` while it does. */
export type KeyStopped = 'revoked' | 'expired' | 'retired';

/**
 * The register: every issued key with its revocation date, if any (the date it is refused from:
 * later than now for a rerolled key in its grace period), and whether a gateway with this
 * keyring's files still accepts it (`stopped`: revoked, expired, or signed by a retired kid).
 */
export function listKeys(dir: string, now = Date.now()): (IssuedKey & { revokedAt: string | undefined; stopped: KeyStopped | undefined })[] {
  const state = readState(dir);
  const p = keyringPaths(dir);
  const revoked = readRevoked(p.revoked).revoked;
  const kids = new Set(readJwks(p.jwks).keys.map((key) => key.kid));
  return state.issued.map((key) => {
    const revokedAt = Object.hasOwn(revoked, key.jti) ? revoked[key.jti] : undefined;
    const stopped: KeyStopped | undefined =
      revokedAt !== undefined && !(Date.parse(revokedAt) > now)
        ? 'revoked'
        : key.expiresAt !== undefined && Date.parse(key.expiresAt) <= now
          ? 'expired'
          : kids.has(key.kid)
            ? undefined
            : 'retired';
    return { ...key, revokedAt, stopped };
  });
}

/** A new signing key: its kid joins the JWKS, new keys are signed with it, old kids keep verifying. */
export async function rotateKey(dir: string): Promise<string> {
  const state = readState(dir);
  const kid = await addSigningKey(dir);
  writeJson(keyringPaths(dir).state, { ...state, signingKid: kid });
  return kid;
}

/** Removes `kid` from the JWKS and deletes its private key: every API key it signed stops working. */
export function retireKey(dir: string, kid: string): void {
  const state = readState(dir);
  if (kid === state.signingKid) throw new KeyringError(`${kid} is the current signing key; rotate first`);
  const p = keyringPaths(dir);
  const jwks = readJwks(p.jwks);
  if (!jwks.keys.some((key) => key.kid === kid)) throw new KeyringError(`no key with that kid in ${p.jwks}`);
  writeJson(p.jwks, { keys: jwks.keys.filter((key) => key.kid !== kid) });
  rmSync(p.privateKey(kid), { force: true });
}

/** The files a gateway needs from this keyring. */
export function keyringFiles(dir: string): { jwks: string; revoked: string } {
  const p = keyringPaths(dir);
  return { jwks: p.jwks, revoked: p.revoked };
}
