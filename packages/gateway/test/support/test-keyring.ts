import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { temporaryDir } from '@animal-store/testkit';
import { join } from 'node:path';
import { SignJWT, importJWK, type JWK } from 'jose';
import { initKeyring, issueKey, keyringFiles, type IssueRequest } from '../../src/keyring/index.js';

/** A keyring in a temp dir, with helpers to issue good keys and forge bad ones. */
export async function createTestKeyring(audience = 'animal-store-production') {
  const dir = temporaryDir('gw-keys-');
  await initKeyring(dir, { issuer: 'animal-store', audience });
  const files = keyringFiles(dir);
  const state = () => JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { signingKid: string };
  const privateJwk = () => JSON.parse(readFileSync(join(dir, 'private', `${state().signingKid}.json`), 'utf8')) as JWK;
  const publicJwk = () => (JSON.parse(readFileSync(files.jwks, 'utf8')) as { keys: JWK[] }).keys.find((key) => key.kid === state().signingKid) as JWK;
  return {
    dir,
    files,
    async issue(request: Partial<IssueRequest> = {}) {
      return issueKey(dir, { plan: 'pro', sub: 'acme', ...request });
    },
    /** Signs arbitrary header and claims with the real signing key (valid signature, wrong content). */
    async sign(header: Record<string, unknown>, claims: Record<string, unknown>): Promise<string> {
      const jwk = privateJwk();
      return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', typ: 'apikey+jwt', kid: jwk.kid, ...header }).sign(await importJWK(jwk, 'EdDSA'));
    },
    publicJwk,
  };
}

/** What `createTestKeyring` resolves with. */
export type TestKeyring = Awaited<ReturnType<typeof createTestKeyring>>;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A token with `alg: none` and an empty signature. */
export function unsignedToken(claims: Record<string, unknown>): string {
  return `${b64({ alg: 'none', typ: 'apikey+jwt' })}.${b64(claims)}.`;
}

/** The classic confusion attack: HS256 with the public key as the HMAC secret. */
export function hmacWithPublicKey(publicJwk: JWK, claims: Record<string, unknown>): string {
  const input = `${b64({ alg: 'HS256', typ: 'apikey+jwt', kid: publicJwk.kid })}.${b64(claims)}`;
  const signature = createHmac('sha256', JSON.stringify(publicJwk)).update(input).digest('base64url');
  return `${input}.${signature}`;
}

/** Claims as the keyring issues them (a pro key of `acme`), with `overrides`: for forged tokens. */
export function claimsFor(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return { iss: 'animal-store', aud: 'animal-store-production', sub: 'acme', jti: 'forged', plan: 'pro', iat: now, ...overrides };
}

/**
 * Tokens that carry `claims` (another account's `jti`, say) but are no key of `keyring`: signed by
 * another keyring, `alg: none`, HS256 with its public key, and signed by its own key for another
 * issuer or audience. `keys revoke` must refuse each (issue 29).
 */
export async function forgedKeys(keyring: TestKeyring, claims: Record<string, unknown>): Promise<Record<string, string>> {
  const elsewhere = await createTestKeyring();
  return {
    'signed by another keyring': await elsewhere.sign({}, claims),
    'alg none': unsignedToken(claims),
    'HS256 with the public key': hmacWithPublicKey(keyring.publicJwk(), claims),
    'another issuer': await keyring.sign({}, { ...claims, iss: 'someone-else' }),
    'another audience': await keyring.sign({}, { ...claims, aud: 'animal-store-staging' }),
  };
}

/**
 * What `keys revoke` was given to make it echo a secret or obey an escape: a key split at its last
 * dot (the signature alone, the rest alone, both as two words), and an id holding terminal escapes.
 * `secret` is what must never be printed.
 */
export function echoBaits(token: string): { args: string[]; secret: string }[] {
  const cut = token.lastIndexOf('.');
  const [rest, signature] = [token.slice(0, cut), token.slice(cut + 1)];
  return [
    { args: [signature], secret: signature },
    { args: [rest], secret: rest },
    { args: [rest, signature], secret: signature },
    { args: ['\u001b]0;owned\u0007\u001b[2J\u009b31mid\r\n'], secret: 'owned' },
  ];
}

/** Control characters (C0, DEL, C1) and bidi overrides: none may reach the operator's terminal. */
export const CONTROL_CHARACTER = /[\p{Cc}\u202a-\u202e\u2066-\u2069](?<!\n)/u;
