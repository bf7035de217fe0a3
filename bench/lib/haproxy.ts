import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@animal-store/testkit';
import { startBenchProcess, type Service } from './services.js';

/** Why the HAProxy references cannot run here, or `false` when they can. */
export function haproxySkipReason(): string | false {
  return spawnSync('haproxy', ['-v']).status === 0 ? false : 'haproxy is not installed (apt-get install haproxy)';
}

/** What the JWT frontend checks: the same claims the gateway checks, with a public key in PEM. */
export interface HaproxyJwt {
  /** A JWS `alg` this HAProxy's `jwt_verify` knows (see `haproxyAcceptsAlgorithm`). */
  readonly algorithm: string;
  /** The public key as SubjectPublicKeyInfo PEM, the form `jwt_verify` loads. */
  readonly publicKeyPem: string;
  readonly issuer: string;
  readonly audience: string;
  readonly typ: string;
  /** Requests a minute per `sub` above which HAProxy answers 429: high enough never to refuse. */
  readonly limitPerMinute: number;
}

/**
 * Whether `jwt_verify` of the installed HAProxy accepts `algorithm` with this key, asked of
 * `haproxy -c` (the converter checks its arguments when the configuration is parsed; nothing is
 * bound). HAProxy 2.6 knows HS*, RS*, ES* and PS* but not EdDSA ("unknown JWT algorithm"), so the
 * JWT reference may need a key of its own.
 */
export function haproxyAcceptsAlgorithm(dir: string, algorithm: string, publicKeyPem: string): boolean {
  const prefix = join(dir, 'haproxy-probe');
  mkdirSync(prefix, { recursive: true });
  const keyFile = join(prefix, 'key.pem');
  writeFileSync(keyFile, publicKeyPem);
  const conf = join(prefix, 'probe.cfg');
  writeFileSync(
    conf,
    `defaults\n  mode http\nfrontend probe\n  bind 127.0.0.1:9\n  http-request deny unless { req.hdr(x),jwt_verify("${algorithm}","${keyFile}") -m int 1 }\n`,
  );
  return spawnSync('haproxy', ['-c', '-q', '-f', conf]).status === 0;
}

/**
 * Verifies every request's Bearer key (signature, alg, typ, iss, aud, exp when present) and counts
 * it in a stick table keyed by its `sub`, over a 60 s window: what HAProxy offers for keys and
 * limits without code. /healthz passes unchecked, as in the gateway.
 */
function jwtRules(jwt: HaproxyJwt, keyFile: string): string {
  return `
  acl healthz path /healthz
  http-request set-var(txn.bearer) http_auth_bearer if !healthz
  http-request set-var(txn.alg) var(txn.bearer),jwt_header_query('$.alg') if !healthz
  http-request set-var(txn.typ) var(txn.bearer),jwt_header_query('$.typ') if !healthz
  http-request set-var(txn.iss) var(txn.bearer),jwt_payload_query('$.iss') if !healthz
  http-request set-var(txn.aud) var(txn.bearer),jwt_payload_query('$.aud') if !healthz
  http-request set-var(txn.sub) var(txn.bearer),jwt_payload_query('$.sub') if !healthz
  http-request set-var(txn.exp) var(txn.bearer),jwt_payload_query('$.exp','int') if !healthz
  http-request set-var(txn.now) date if !healthz
  # jwt_verify does not compare the header's alg with the one it is given: checked first.
  http-request deny deny_status 401 if !healthz !{ var(txn.alg) -m str ${jwt.algorithm} }
  http-request deny deny_status 401 if !healthz !{ var(txn.typ) -m str ${jwt.typ} }
  http-request deny deny_status 401 if !healthz !{ var(txn.iss) -m str ${jwt.issuer} }
  http-request deny deny_status 401 if !healthz !{ var(txn.aud) -m str ${jwt.audience} }
  http-request deny deny_status 401 if !healthz { var(txn.exp) -m found } { var(txn.exp),sub(txn.now) -m int lt 0 }
  http-request deny deny_status 401 if !healthz !{ var(txn.bearer),jwt_verify(txn.alg,"${keyFile}") -m int 1 }
  stick-table type string len 256 size 200k expire 60s store http_req_rate(60s)
  http-request track-sc0 var(txn.sub) if !healthz
  http-request deny deny_status 429 if !healthz { sc_http_req_rate(0) gt ${jwt.limitPerMinute} }`;
}

export interface HaproxyOptions {
  /** Verify every request's key and count it per account (one stick table, shared by the threads). */
  readonly jwt?: HaproxyJwt;
  /** One by default, like the one gateway process it is compared with; two beside a gateway of two workers. */
  readonly threads?: number;
  /** Terminate TLS with this PEM file (the certificate, then its key), as the gateway does given TLS_CERT_FILE. */
  readonly tlsPem?: string;
}

/**
 * HAProxy in front of `upstreamUrl`, upstream connections kept alive and shared between clients
 * (`http-reuse always`, as nginx's keepalive pool and undici's do), no logs (like the nginx
 * reference); with `options`, also verifying keys, with more threads, or over TLS.
 */
export async function startHaproxy(dir: string, name: string, upstreamUrl: string, options: HaproxyOptions = {}): Promise<Service> {
  const { jwt, threads = 1, tlsPem } = options;
  const port = await freePort();
  const upstream = new URL(upstreamUrl);
  const prefix = join(dir, name.replace(/[^a-z0-9-]/gi, '-'));
  mkdirSync(prefix, { recursive: true });
  const keyFile = join(prefix, 'key.pem');
  if (jwt !== undefined) writeFileSync(keyFile, jwt.publicKeyPem);
  const conf = join(prefix, 'haproxy.cfg');
  writeFileSync(
    conf,
    `global
  nbthread ${threads}
  maxconn 4096
defaults
  mode http
  option http-keep-alive
  http-reuse always
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend api
  bind 127.0.0.1:${port}${tlsPem === undefined ? '' : ` ssl crt ${tlsPem}`}${jwt === undefined ? '' : jwtRules(jwt, keyFile)}
  default_backend core
backend core
  server core ${upstream.hostname}:${upstream.port}
`,
  );
  // -db: stay in the foreground, so the process we started is the one measured and stopped.
  // HAProxy proxies /healthz to the core unchecked: it answers once both are up.
  return startBenchProcess(name, { command: ['haproxy', '-db', '-q', '-f', conf], env: {} }, port, tlsPem === undefined ? 'http' : 'https');
}
