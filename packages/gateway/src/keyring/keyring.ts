import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { keyringPaths, readJson, upgradeLayout, writeJson } from './keyring-files.js';
import { generateSigningKey, signApiKey, type CustomLimits, type JSONWebKeySet, type JWK, type Plan, type RevocationFile } from '../auth/index.js';

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
}

interface State {
  readonly issuer: string;
  readonly audience: string;
  signingKid: string;
  readonly issued: IssuedKey[];
}

export class KeyringError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyringError';
  }
}

function readState(dir: string): State {
  if (!existsSync(keyringPaths(dir).state)) throw new KeyringError(`no keyring in ${dir} (run: npm run keys -- init)`);
  upgradeLayout(dir);
  return readJson<State>(keyringPaths(dir).state);
}

async function addSigningKey(dir: string): Promise<string> {
  const p = keyringPaths(dir);
  const { privateJwk, publicJwk } = await generateSigningKey();
  const kid = publicJwk.kid as string;
  mkdirSync(p.privateDir, { recursive: true, mode: 0o700 });
  mkdirSync(p.publicDir, { recursive: true, mode: 0o755 });
  writeJson(p.privateKey(kid), privateJwk, 0o600);
  chmodSync(p.privateKey(kid), 0o600);
  const jwks: JSONWebKeySet = existsSync(p.jwks) ? readJson(p.jwks) : { keys: [] };
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
}

/** Signs a new API key with the current signing key and records it (not the key) in the register. */
export async function issueKey(dir: string, request: IssueRequest): Promise<{ token: string; record: IssuedKey }> {
  if (request.limits !== undefined && request.plan !== 'enterprise') throw new KeyringError('custom limits (--minute, --day) are for the enterprise plan only');
  const state = readState(dir);
  const now = request.now ?? Date.now();
  const jti = randomBytes(12).toString('base64url');
  const expiresAt = request.ttlMs === undefined ? undefined : now + request.ttlMs;
  const privateJwk = readJson<JWK>(keyringPaths(dir).privateKey(state.signingKid));
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
  };
  writeJson(keyringPaths(dir).state, { ...state, issued: [...state.issued, record] });
  return { token, record };
}

/** Adds `jti` to the deny-list file. Refuses ids this keyring never issued. */
export function revokeKey(dir: string, jti: string, now = Date.now()): void {
  if (!readState(dir).issued.some((key) => key.jti === jti)) throw new KeyringError(`no key with id ${jti} was issued from this keyring`);
  const file = keyringPaths(dir).revoked;
  const current = existsSync(file) ? readJson<RevocationFile>(file) : { revoked: {} };
  writeJson(file, { revoked: { ...current.revoked, [jti]: new Date(now).toISOString() } });
}

/** Why an issued key no longer verifies, or `undefined` while it does. */
export type KeyStopped = 'revoked' | 'expired' | 'retired';

/**
 * The register: every issued key with its revocation date, if any, and whether a gateway with
 * this keyring's files still accepts it (`stopped`: revoked, expired, or signed by a retired kid).
 */
export function listKeys(dir: string, now = Date.now()): (IssuedKey & { revokedAt: string | undefined; stopped: KeyStopped | undefined })[] {
  const state = readState(dir);
  const p = keyringPaths(dir);
  const revoked = existsSync(p.revoked) ? readJson<RevocationFile>(p.revoked).revoked : {};
  const kids = new Set(readJson<JSONWebKeySet>(p.jwks).keys.map((key) => key.kid));
  return state.issued.map((key) => {
    const revokedAt = revoked[key.jti];
    const stopped: KeyStopped | undefined =
      revokedAt !== undefined
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
  const jwks = readJson<JSONWebKeySet>(p.jwks);
  if (!jwks.keys.some((key) => key.kid === kid)) throw new KeyringError(`no key ${kid} in ${p.jwks}`);
  writeJson(p.jwks, { keys: jwks.keys.filter((key) => key.kid !== kid) });
  rmSync(p.privateKey(kid), { force: true });
}

/** The files a gateway needs from this keyring. */
export function keyringFiles(dir: string): { jwks: string; revoked: string } {
  const p = keyringPaths(dir);
  return { jwks: p.jwks, revoked: p.revoked };
}
