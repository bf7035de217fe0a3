import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
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

/** A docs answer: 200 with its body, or 304 when the client has it (`If-None-Match`). */
export interface DocsAnswer {
  readonly status: 200 | 304;
  readonly headers: Readonly<Record<string, string>>;
  /** Absent for 304 and HEAD. */
  readonly body: Buffer | undefined;
}

/** The answer to a docs request, or `undefined` when it is not one (another path, or not GET/HEAD). */
export type AnswerDocs = (method: string, path: string, ifNoneMatch: string | undefined) => DocsAnswer | undefined;

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
 * GET and HEAD only; `If-None-Match` answers 304. The pipeline writes the answer.
 */
export function createDocs(options: DocsOptions): AnswerDocs {
  const bundleFile = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  const title = String((options.document.info as { title?: unknown } | undefined)?.title ?? 'API');
  const assets = new Map<string, () => Asset>();
  const once = (make: () => Asset) => {
    let made: Asset | undefined;
    return () => (made ??= make());
  };
  assets.set(
    options.documentPath,
    once(() => asset(Buffer.from(JSON.stringify(options.document, null, 2)), 'application/json', 'public, max-age=300')),
  );
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
  assets.set(
    RENDERER_PATH,
    once(() => asset(readFileSync(bundleFile), 'text/javascript; charset=utf-8', 'public, max-age=86400')),
  );

  return function answerDocs(method, path, ifNoneMatch) {
    const make = assets.get(path);
    if (make === undefined || (method !== 'GET' && method !== 'HEAD')) return undefined;
    const { body, type, etag, cacheControl, csp } = make();
    const headers: Record<string, string> = { etag, 'cache-control': cacheControl, 'x-content-type-options': 'nosniff' };
    if (csp !== undefined) headers['content-security-policy'] = csp;
    if (ifNoneMatch === etag) return { status: 304, headers, body: undefined };
    return { status: 200, headers: { ...headers, 'content-type': type, 'content-length': String(body.length) }, body: method === 'HEAD' ? undefined : body };
  };
}
