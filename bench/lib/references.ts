import type { RedisServer } from '@animal-store/testkit';
import { API_KEY_TYP, type ApiKeyToSign, type JWK } from '@animal-store/gateway';
import { startFastifyStack } from './fastify-stack.js';
import { haproxySkipReason, startHaproxy } from './haproxy.js';
import { haproxyKey } from './haproxy-key.js';
import { nginxSkipReason, startNginx } from './nginx.js';
import type { Service } from './services.js';
import type { BenchCertificate } from './tls.js';

/** Someone else's software in front of the same core: what the gateway is compared with. */
export interface References {
  readonly nginx: Service | undefined;
  readonly haproxy: Service | undefined;
  readonly haproxyJwt: Service | undefined;
  /** The same with `nbthread 2`: the reference of a gateway with two workers. */
  readonly haproxyJwt2: Service | undefined;
  /** The same with `nbthread 1`, terminating TLS (where the bench could make a certificate). */
  readonly haproxyJwtTls: Service | undefined;
  readonly haproxyKey: string | undefined;
  /** The JWS alg the HAProxy JWT reference verifies (see lib/haproxy-key.ts). */
  readonly haproxyAlgorithm: string | undefined;
  /** Signs claims with the key HAProxy verifies (the many accounts of issue 40). */
  readonly haproxySign: ((claims: ApiKeyToSign) => Promise<string>) | undefined;
  readonly fastifyStack: Service | undefined;
  /** Why a reference is missing, one line each, for the console and the report. */
  readonly skipped: readonly string[];
}

export interface ReferenceKeys {
  readonly jwksFile: string;
  readonly publicJwk: JWK;
  readonly oneKey: string;
  /** The claims of `oneKey`, signed again for HAProxy when it cannot verify EdDSA. */
  readonly oneKeyClaims: ApiKeyToSign;
  /** Signs claims with the gateway's key (HAProxy verifies these where it knows EdDSA). */
  readonly sign: (claims: ApiKeyToSign) => Promise<string>;
}

/**
 * Starts every reference this machine can run, each skipped with its reason where its program is
 * missing (nginx, haproxy) or Redis is (the Fastify stack keeps its limits there); the TLS one
 * where there is a `certificate`. Each one started is pushed to `started` at once, so the caller
 * stops it even if a later one fails to start.
 */
export async function startReferences(
  dir: string,
  coreUrl: string,
  redis: RedisServer | undefined,
  keys: ReferenceKeys,
  certificate: BenchCertificate | undefined,
  started: Service[],
): Promise<References> {
  const skipped: string[] = [];
  const keep = (service: Service): Service => {
    started.push(service);
    return service;
  };
  const nginxSkip = nginxSkipReason();
  if (nginxSkip !== false) skipped.push(`no nginx reference: ${nginxSkip}`);
  const nginx = nginxSkip === false ? keep(await startNginx(dir, coreUrl)) : undefined;

  let haproxy: Service | undefined;
  let haproxyJwt: Service | undefined;
  let haproxyJwt2: Service | undefined;
  let haproxyJwtTls: Service | undefined;
  let key: Awaited<ReturnType<typeof haproxyKey>> | undefined;
  const haproxySkip = haproxySkipReason();
  if (haproxySkip !== false) skipped.push(`no HAProxy references: ${haproxySkip}`);
  else {
    key = await haproxyKey(dir, keys.publicJwk, keys.oneKey, keys.oneKeyClaims, keys.sign);
    haproxy = keep(await startHaproxy(dir, 'haproxy', coreUrl));
    const { issuer, audience } = keys.oneKeyClaims;
    const jwt = { algorithm: key.algorithm, publicKeyPem: key.publicKeyPem, issuer, audience, typ: API_KEY_TYP, limitPerMinute: 1_000_000_000 };
    haproxyJwt = keep(await startHaproxy(dir, 'haproxy (jwt_verify, stick table)', coreUrl, { jwt }));
    haproxyJwt2 = keep(await startHaproxy(dir, 'haproxy (jwt_verify, stick table, nbthread 2)', coreUrl, { jwt, threads: 2 }));
    if (certificate !== undefined)
      haproxyJwtTls = keep(await startHaproxy(dir, 'haproxy (jwt_verify, stick table, TLS)', coreUrl, { jwt, tlsPem: certificate.combinedFile }));
  }

  let fastifyStack: Service | undefined;
  if (redis === undefined) skipped.push('no Fastify stack reference: it keeps its limits in Redis, and redis-server is not installed');
  else {
    const { issuer, audience } = keys.oneKeyClaims;
    fastifyStack = keep(
      await startFastifyStack({ upstreamUrl: coreUrl, redisUrl: redis.url, jwksFile: keys.jwksFile, issuer, audience, limitPerMinute: 1_000_000_000 }),
    );
  }
  return {
    nginx,
    haproxy,
    haproxyJwt,
    haproxyJwt2,
    haproxyJwtTls,
    haproxyKey: key?.key,
    haproxyAlgorithm: key?.algorithm,
    haproxySign: key?.sign,
    fastifyStack,
    skipped,
  };
}
