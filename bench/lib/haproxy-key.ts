import { exportJWK, exportSPKI, generateKeyPair, importJWK, type JWK } from 'jose';
import { signApiKey, type ApiKeyToSign } from '@animal-store/gateway';
import { haproxyAcceptsAlgorithm } from './haproxy.js';

export interface HaproxyKey {
  /** The JWS alg HAProxy verifies: EdDSA when its jwt_verify knows it, else ES256. */
  readonly algorithm: 'EdDSA' | 'ES256';
  readonly publicKeyPem: string;
  /** The API key to send it. */
  readonly key: string;
  /** Signs other claims for it (the many accounts of issue 40), with the key it verifies. */
  readonly sign: (claims: ApiKeyToSign) => Promise<string>;
}

/**
 * The API key the HAProxy JWT reference verifies: the gateway's own EdDSA key where the installed
 * HAProxy's `jwt_verify` knows EdDSA; otherwise (HAProxy 2.6) the same claims signed with an ES256
 * key made for it. The gateway could verify ES256 too (KEY_ALGORITHMS), but its scenarios keep
 * EdDSA, the algorithm its keys are issued with; the report says which one HAProxy verified.
 */
export async function haproxyKey(
  dir: string,
  publicJwk: JWK,
  key: string,
  claims: ApiKeyToSign,
  signEdDsa: (claims: ApiKeyToSign) => Promise<string>,
): Promise<HaproxyKey> {
  const edPem = await exportSPKI((await importJWK(publicJwk, 'EdDSA')) as Parameters<typeof exportSPKI>[0]);
  if (haproxyAcceptsAlgorithm(dir, 'EdDSA', edPem)) return { algorithm: 'EdDSA', publicKeyPem: edPem, key, sign: signEdDsa };
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), alg: 'ES256' };
  const sign = (toSign: ApiKeyToSign) => signApiKey(privateJwk, toSign);
  return { algorithm: 'ES256', publicKeyPem: await exportSPKI(publicKey), key: await sign(claims), sign };
}
