import { fileURLToPath } from 'node:url';
import { settings } from '@animal-store/http-kit';
import { z } from 'zod';
import type { ResolveFile } from './file-paths.js';
import { basePath, cidrList, int, ms, originList, port } from './env-values.js';
import { trustedProxies } from './trusted-proxies.js';

/** The interface document shipped with the core; any backend's document can replace it. */
const DEFAULT_OPENAPI_FILE = fileURLToPath(new URL('../../../core/openapi.json', import.meta.url));
const KIB = 1024;
const MIB = 1024 * KIB;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The gateway's own listener and what it serves: fields at the top of the config. */
export const LISTENER = settings({
  port: ['PORT', port.default(8080)],
  host: ['HOST', z.string().min(1).default('127.0.0.1')],
  /** The public base path of every operation; `undefined`: the document's first server's. */
  publicBasePath: ['PUBLIC_BASE_PATH', basePath.optional()],
  openApiFile: ['OPENAPI_FILE', z.string().min(1).default(DEFAULT_OPENAPI_FILE)],
  bodyLimitBytes: ['BODY_LIMIT_BYTES', int(1, 16 * MIB).default(64 * KIB)],
  /** Peers whose `X-Forwarded-*` headers are believed; `undefined` when none is. */
  trustProxy: ['TRUST_PROXY', cidrList.default([]).transform((entries) => (entries.length === 0 ? undefined : trustedProxies(entries)))],
  shutdownTimeoutMs: ['SHUTDOWN_TIMEOUT_MS', ms.default(10_000)],
  /** Answer 410 for deprecated operations once their sunset has passed. */
  enforceSunset: ['ENFORCE_SUNSET', z.stringbool().default(true)],
  /** Overrides the `rel="deprecation"` link target. */
  deprecationDocUrl: ['DEPRECATION_DOC_URL', z.string().min(1).optional()],
  logLevel: ['LOG_LEVEL', z.enum(LOG_LEVELS).default('info')],
});

/** TLS on the gateway's own listener (PEM files, re-read at each start); both or neither. */
export const TLS = settings({
  certFile: ['TLS_CERT_FILE', z.string().min(1).optional()],
  keyFile: ['TLS_KEY_FILE', z.string().min(1).optional()],
});

/** Browsers on these origins may call the API. */
export const CORS = settings({
  origins: ['CORS_ORIGINS', originList.default([])],
  maxAgeSeconds: ['CORS_MAX_AGE_SECONDS', int(0, 86_400).default(600)],
});

/** Limits on client connections: the config's `server`. */
export const CONNECTIONS = settings({
  headersTimeoutMs: ['HEADERS_TIMEOUT_MS', ms.default(10_000)],
  requestTimeoutMs: ['REQUEST_TIMEOUT_MS', ms.default(30_000)],
  maxHeaderSize: ['MAX_HEADER_SIZE', int(KIB, MIB).default(16 * KIB)],
  keepAliveTimeoutMs: ['KEEP_ALIVE_TIMEOUT_MS', ms.default(5_000)],
  /** A connection whose client takes nothing of its answer for this long is closed. */
  sendTimeoutMs: ['SEND_TIMEOUT_MS', ms.default(30_000)],
});

/** The server section's variables. */
export const SERVER_ENV = { ...LISTENER.shape, ...TLS.shape, ...CORS.shape, ...CONNECTIONS.shape };

/** The server slice: the listener's fields, `tls` and `cors` (`undefined` when off) and `server`. */
export function serverConfig(env: Readonly<Record<string, unknown>>, file: ResolveFile) {
  const { openApiFile, ...listener } = LISTENER.read(env);
  const { certFile, keyFile } = TLS.read(env);
  const { origins, maxAgeSeconds } = CORS.read(env);
  return {
    ...listener,
    openApiFile: file(openApiFile),
    tls: certFile === undefined || keyFile === undefined ? undefined : { certFile: file(certFile), keyFile: file(keyFile) },
    /** `undefined`: no CORS headers at all. */
    cors: origins.length === 0 ? undefined : { origins: origins[0] === '*' ? ('*' as const) : origins, maxAgeSeconds },
    server: CONNECTIONS.read(env),
  };
}
