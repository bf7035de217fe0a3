import { createFixedKeyVerifier, identityOf, InvalidKeyError } from '../auth/index.js';
import { KeyringError, keyringPaths } from './keyring-files.js';
import { readJwks, readState } from './keyring-state.js';

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
