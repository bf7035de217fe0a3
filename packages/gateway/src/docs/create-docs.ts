import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { REFERENCE_PAGE_CSP, REFERENCE_PAGE_PATH, RENDERER_PATH, referencePage } from './reference-page.js';

export interface DocsOptions {
  /** The effective API document (see `buildEffectiveDocument`). */
  readonly document: Record<string, unknown>;
  /** Where the gateway serves the document: `/v1/openapi.json`. */
  readonly documentPath: string;
  readonly deprecationNotesUrl: string;
}

interface Asset {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
  readonly cacheControl: string;
  readonly csp?: string;
}

/** Answers a docs request and returns its outcome, or `undefined` when the path is not one of them. */
export type AnswerDocs = (req: IncomingMessage, res: ServerResponse, headers: Readonly<Record<string, string>>) => string | undefined;

const asset = (body: Buffer, type: string, cacheControl: string, csp?: string): Asset => ({
  body,
  type,
  cacheControl,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  ...(csp === undefined ? {} : { csp }),
});

/**
 * The gateway's documentation for API consumers, none of it behind a key: the effective API
 * document (JSON), the reference page, and the renderer's bundle, read once from node_modules.
 * GET and HEAD only; `If-None-Match` answers 304.
 */
export function createDocs(options: DocsOptions): AnswerDocs {
  const bundleFile = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  const title = String((options.document.info as { title?: unknown } | undefined)?.title ?? 'API');
  const assets = new Map<string, () => Asset>();
  const once = (make: () => Asset) => {
    let made: Asset | undefined;
    return () => (made ??= make());
  };
  assets.set(options.documentPath, once(() => asset(Buffer.from(JSON.stringify(options.document, null, 2)), 'application/json', 'public, max-age=300')));
  assets.set(
    REFERENCE_PAGE_PATH,
    once(() =>
      asset(
        Buffer.from(referencePage({ documentUrl: options.documentPath, deprecationNotesUrl: options.deprecationNotesUrl, title: `${title}: API reference` })),
        'text/html; charset=utf-8',
        'public, max-age=300',
        REFERENCE_PAGE_CSP,
      ),
    ),
  );
  // About a megabyte: read on the first request for it, not at start.
  assets.set(RENDERER_PATH, once(() => asset(readFileSync(bundleFile), 'text/javascript; charset=utf-8', 'public, max-age=86400')));

  return function answerDocs(req, res, headers) {
    const path = (req.url ?? '/').split('?')[0] as string;
    const make = assets.get(path);
    if (make === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) return undefined;
    const { body, type, etag, cacheControl, csp } = make();
    const common: Record<string, string> = { ...headers, etag, 'cache-control': cacheControl, 'x-content-type-options': 'nosniff' };
    if (csp !== undefined) common['content-security-policy'] = csp;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, common);
      res.end();
      return 'docs';
    }
    res.writeHead(200, { ...common, 'content-type': type, 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
    return 'docs';
  };
}
