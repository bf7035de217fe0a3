import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { addToDenyList, generateSigningKey, signApiKey, type CustomLimits, type JSONWebKeySet, type JWK, type RevocationFile } from '../auth/index.js';
import { PlanName } from '../identity/index.js';
import { KeyringError, keyringPaths, readJson, writeJson } from './keyring-files.js';
import { issuedKey, PrivateKeyFile, readJwks, readRevoked, readState, type IssuedKey, type State } from './keyring-state.js';

/*
 * The keyring's commands: make it, sign and record keys, revoke, list, rotate and retire kids.
 * Its files and what each holds are `keyring-state.ts`'s; a reroll is `reroll-key.ts`, the check
 * of a key given whole `verified-key-id.ts`.
 */

export { KeyringError };

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
  /** Any plan name (`PlanName`); which plans exist is the plans file's, which the CLI checks. */
  readonly plan: string;
  readonly sub: string;
  readonly ttlMs?: number | undefined;
  readonly limits?: CustomLimits | undefined;
  readonly now?: number;
  /** The key this one replaces (`rerollKey`), recorded in the register. */
  readonly replaces?: string | undefined;
}

/** The latest date a keyring writes: `toISOString` has four-digit years up to it, and a JWT's `exp` is far below. */
export const LATEST_DATE = Date.UTC(9999, 11, 31, 23, 59, 59);

/** `at` as the register writes it; a KeyringError naming `what` when no date is that late. */
export function dateText(at: number, what: string): string {
  if (!(at <= LATEST_DATE)) throw new KeyringError(`${what} would be after the year 9999: nothing was written`);
  return new Date(at).toISOString();
}

/** Signs a new API key with the current signing key and records it (not the key) in the register. */
export async function issueKey(dir: string, request: IssueRequest): Promise<{ token: string; record: IssuedKey }> {
  if (!PlanName.safeParse(request.plan).success)
    throw new KeyringError('a plan name is 1 to 64 visible ASCII characters and inner spaces (it travels in X-Api-Plan)');
  const state = readState(dir);
  const now = request.now ?? Date.now();
  const jti = randomBytes(12).toString('base64url');
  const expiresAt = request.ttlMs === undefined ? undefined : now + request.ttlMs;
  // Checked before anything is signed or written: a date out of range used to fail after both.
  const expiresText = expiresAt === undefined ? undefined : dateText(expiresAt, 'the expiry (--ttl)');
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
    expiresAt: expiresText,
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
