import { settings } from '@animal-store/http-kit';
import { z } from 'zod';
import { PROXY_ENGINES } from '../proxy/engines.js';
import { basePath, httpUrl, int, ms } from './env-values.js';

/** The backend the gateway forwards to: the config's `upstream`, as read. */
export const UPSTREAM = settings({
  url: ['UPSTREAM_URL', httpUrl.default('http://127.0.0.1:8081').transform((href) => new URL(href))],
  timeoutMs: ['UPSTREAM_TIMEOUT_MS', ms.default(10_000)],
  idleTimeoutMs: ['UPSTREAM_IDLE_TIMEOUT_MS', ms.default(30_000)],
  maxSockets: ['UPSTREAM_MAX_SOCKETS', int(1).default(256)],
  readyPath: ['UPSTREAM_READY_PATH', z.string().startsWith('/').default('/readyz')],
  /** The backend's base path, which replaces the public one; `undefined`: paths go unchanged. */
  basePath: ['UPSTREAM_BASE_PATH', basePath.optional()],
  /** Rewrite the upstream's `Location` and `Link` to public paths, as nginx's `proxy_redirect default`. */
  rewriteLinks: ['UPSTREAM_REWRITE_LINKS', z.stringbool().default(true)],
  /** Send the client's verified `Authorization` on to a backend that checks it too. */
  forwardAuthorization: ['FORWARD_AUTHORIZATION', z.stringbool().default(false)],
  engine: ['PROXY_ENGINE', z.enum(PROXY_ENGINES).default('undici')],
});
