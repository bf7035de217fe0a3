import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { TEST_ENV } from './config.js';

/**
 * Why tests that need the program `command` cannot run here, or `false` when they can. Under CI a
 * missing program is an error, not a skip: CI must run every test.
 */
export function commandSkipReason(command: string, install: string): string | false {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { env: { PATH: TEST_ENV.path } }).status === 0;
  if (found) return false;
  const reason = `${command} is not installed (${install})`;
  if (TEST_ENV.ci) throw new Error(`CI=true but ${reason}`);
  return reason;
}

/** A self-signed certificate and its key, PEM files in `dir`, valid for localhost and 127.0.0.1. */
export function selfSignedCertificate(dir: string): { readonly certFile: string; readonly keyFile: string } {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile };
}
