import { z } from 'zod';
import type { GatewayConfig } from '../config/index.js';
import { DEPRECATION_NOTES_PATH } from '../deprecation/index.js';
import { createDocs } from '../docs/index.js';
import { createLinkRewriter } from '../http/link-rewrite.js';
import { buildEffectiveDocument, DOCUMENT_PATH, withPublicBasePath } from '../openapi/index.js';
import { createUpstream, upstreamPrefix } from '../proxy/index.js';
import { apiOperations } from '../routing/index.js';
import { readJsonFile } from '../sources/read-json-file.js';

/**
 * The API a worker serves, from its document (`OPENAPI_FILE`) and the upstream's settings: the
 * operations, what its consumers read of it (the backend's document with the gateway's additions,
 * and its reference page), and the upstream it is forwarded to. Throws, naming the setting, when
 * the document cannot be used (the gateway does not start): a path the gateway answers itself, say.
 */
export function apiOfConfig(config: GatewayConfig) {
  const { all: operations, basePath } = apiOperations(config.openApiFile, config.publicBasePath);
  const docUrl = config.deprecationDocUrl ?? DEPRECATION_NOTES_PATH;
  const backendDocument = readJsonFile(config.openApiFile, z.record(z.string(), z.unknown()), 'OPENAPI_FILE', 'is not a usable OpenAPI document');
  let document: Record<string, unknown>;
  try {
    document = buildEffectiveDocument(backendDocument, { deprecationDocUrl: docUrl });
    if (config.publicBasePath !== undefined) document = withPublicBasePath(document, basePath);
  } catch (error) {
    throw new Error(`OPENAPI_FILE ${config.openApiFile}: ${(error as Error).message}`);
  }
  const docs = createDocs({ document, documentPath: `${basePath}${DOCUMENT_PATH}`, deprecationNotesUrl: docUrl });
  const upstreamBase = upstreamPrefix(config.upstream.url, config.upstream.basePath, basePath);
  const linkRewriter = config.upstream.rewriteLinks
    ? createLinkRewriter({ upstreamOrigin: config.upstream.url.origin, upstreamPrefix: upstreamBase, publicPrefix: basePath })
    : undefined;
  const upstream = createUpstream(config.upstream.engine, { target: config.upstream.url, ...config.upstream, linkRewriter });
  return { operations, docs, upstream, basePaths: { public: basePath || '/', upstream: upstreamBase || '/' } };
}
