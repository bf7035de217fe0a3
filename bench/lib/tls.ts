import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, getCACertificates, setDefaultCACertificates } from 'node:tls';
import { selfSignedCertificate } from '@animal-store/testkit';

/*
 * The TLS scenarios: the gateway and HAProxy each terminate TLS with the same self-signed
 * certificate. The load generators do not verify it (autocannon never does; wrk does not either),
 * and the bench's own clients (the readiness probes, `fetch`) trust it, as a client given its CA.
 */

/** Why the TLS scenarios cannot run here, or `false` when they can. */
export function tlsSkipReason(): string | false {
  if (spawnSync('openssl', ['version']).status !== 0) return 'openssl is not installed (apt-get install openssl): it makes their certificate';
  // Node 22.19 and 24.5 added it; an older Node's fetch could not be told to trust the certificate.
  if (typeof setDefaultCACertificates !== 'function') return `Node ${process.version} has no tls.setDefaultCACertificates (22.19 or 24.5 and later)`;
  return false;
}

export interface BenchCertificate {
  /** The certificate and its key, each a PEM file: the gateway's TLS_CERT_FILE and TLS_KEY_FILE. */
  readonly certFile: string;
  readonly keyFile: string;
  /** The certificate then its key in one PEM file: what HAProxy's `bind … ssl crt` loads. */
  readonly combinedFile: string;
}

/**
 * A self-signed certificate for 127.0.0.1 (an ECDSA P-256 key, as testkit makes it) in `dir`, and
 * from now on trusted by this process's TLS clients, `fetch` included: the default CAs and it.
 */
export function trustedCertificate(dir: string): BenchCertificate {
  const { certFile, keyFile } = selfSignedCertificate(dir);
  const cert = readFileSync(certFile, 'utf8');
  const combinedFile = join(dir, 'cert-and-key.pem');
  writeFileSync(combinedFile, `${cert.trimEnd()}\n${readFileSync(keyFile, 'utf8')}`);
  setDefaultCACertificates([...getCACertificates('default'), cert]);
  return { certFile, keyFile, combinedFile };
}

/**
 * The protocol and cipher suite `url`'s server agrees with a TLS client of this process, which
 * offers what autocannon's connections offer (Node's defaults): `TLSv1.3 TLS_AES_256_GCM_SHA384`.
 */
export function negotiated(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      const cipher = socket.getCipher();
      resolve(`${socket.getProtocol() ?? 'unknown'} ${cipher.standardName}`);
      socket.destroy();
    });
    socket.once('error', reject);
  });
}
