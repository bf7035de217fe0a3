import { mapPrefix } from '../http/map-prefix.js';
import { serverBasePath } from '../routing/index.js';
import type { Json } from './gateway-components.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** `scheme://authority` (variables allowed: `https://{host}`), then the path. */
const SERVER_URL = /^([a-z][a-z0-9+.-]*:\/\/[^/]*)?(.*)$/i;

/**
 * The document as served under PUBLIC_BASE_PATH (`publicBase`, `''` for the root): every server
 * URL has the public base path as its path, and an `x-successor-version` under the document's own
 * base path (its first server's) moves with it. Without this, a client generated from the served
 * document, or a reader following a successor, would call the old paths and get 404s.
 */
export function withPublicBasePath(document: Json, publicBase: string): Json {
  const servers = Array.isArray(document.servers) ? (document.servers as Json[]) : [];
  const first = servers[0];
  const documentBase = typeof first?.url === 'string' ? serverBasePath(first as { url: string }) : '';
  if (documentBase === publicBase) return document;
  const doc = structuredClone(document);
  // No servers means the one server `/` (OpenAPI): say where the operations are now.
  doc.servers = servers.length === 0 ? [{ url: publicBase || '/' }] : servers.map((server) => ({ ...server, url: withPath(String(server.url), publicBase) }));
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      const successor = op?.['x-successor-version'];
      if (op === undefined || typeof successor !== 'string') continue;
      op['x-successor-version'] = mapPrefix(successor, documentBase, publicBase) ?? successor;
    }
  }
  return doc;
}

/** A server URL with its path replaced: `https://{host}/v1` → `https://{host}/api/pets`. */
function withPath(url: string, path: string): string {
  const authority = SERVER_URL.exec(url)?.[1] ?? '';
  return authority === '' ? path || '/' : authority + path;
}
