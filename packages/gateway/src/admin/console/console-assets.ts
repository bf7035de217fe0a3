import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AdminAnswer } from '../admin-answer.js';

/**
 * What the console may load: its own script, style and the admin API, nothing from elsewhere; no
 * inline script or style (the page writes text, never markup, into itself).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The console's files, by the path the admin listener serves each at. */
const FILES = {
  '/admin': { file: 'console.html', type: 'text/html; charset=utf-8' },
  '/admin/console.js': { file: 'console.js', type: 'text/javascript; charset=utf-8' },
  // The modules console.js imports, relative to it (admin/…).
  '/admin/console-api.js': { file: 'console-api.js', type: 'text/javascript; charset=utf-8' },
  '/admin/console-dom.js': { file: 'console-dom.js', type: 'text/javascript; charset=utf-8' },
  '/admin/console-tables.js': { file: 'console-tables.js', type: 'text/javascript; charset=utf-8' },
  '/admin/console.css': { file: 'console.css', type: 'text/css; charset=utf-8' },
} as const;

interface Asset {
  readonly body: Buffer;
  readonly etag: string;
  readonly type: string;
}

const made = new Map<string, Asset>();

/** The file served at `path`, read once from beside this module; `undefined` for any other path. */
function assetAt(path: string): Asset | undefined {
  if (!Object.hasOwn(FILES, path)) return undefined;
  let asset = made.get(path);
  if (asset === undefined) {
    const { file, type } = FILES[path as keyof typeof FILES];
    const body = readFileSync(new URL(file, import.meta.url));
    asset = { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    made.set(path, asset);
  }
  return asset;
}

/**
 * The console page, its style and its script (a module, and the modules it imports): plain HTML, CSS and JavaScript served by the gateway
 * itself (no framework, nothing from outside). Every URL in them is relative, so the console works
 * under any prefix a reverse proxy puts the admin listener behind. The files hold no data and no
 * secret: they are served without a token; the page asks for one and sends it to the admin API.
 * GET and HEAD; `If-None-Match` answers 304 (revalidated every time: `no-cache`).
 */
export function consoleAsset(method: string, path: string, ifNoneMatch: string | undefined): AdminAnswer | undefined {
  const asset = assetAt(path);
  if (asset === undefined) return undefined;
  if (method !== 'GET' && method !== 'HEAD') return { kind: 'error', code: 'method_not_allowed', headers: { allow: 'GET, HEAD' } };
  const headers: Record<string, string> = {
    etag: asset.etag,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'content-security-policy': CONSOLE_CSP,
  };
  if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === asset.etag)) {
    return { kind: 'asset', status: 304, headers, body: undefined };
  }
  return {
    kind: 'asset',
    status: 200,
    headers: { ...headers, 'content-type': asset.type, 'content-length': String(asset.body.length) },
    body: method === 'HEAD' ? undefined : asset.body,
  };
}
