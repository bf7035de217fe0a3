import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { type Coding, preferredCoding } from './accept-encoding.js';
import { REFERENCE_PAGE_CSP, REFERENCE_PAGE_PATH, RENDERER_PATH, referencePage } from './reference-page.js';

export interface DocsOptions {
  /** The effective API document (see `buildEffectiveDocument`). */
  readonly document: Record<string, unknown>;
  /** Where the gateway serves the document: `/v1/openapi.json`. */
  readonly documentPath: string;
  readonly deprecationNotesUrl: string;
}

/** One representation of an asset: its bytes as sent, their coding (none for identity) and ETag. */
interface Representation {
  readonly body: Buffer;
  readonly etag: string;
  readonly coding?: Coding;
}

interface Asset {
  readonly identity: Representation;
  readonly type: string;
  readonly cacheControl: string;
  readonly csp?: string;
  /** The representation in `coding`: made once, off the event loop, then kept. */
  encoded(coding: Coding): Representation | Promise<Representation>;
}

/** A docs answer: 200 with its body, 304 when the client has it (`If-None-Match`), 405 for a method other than GET and HEAD. */
export interface DocsAnswer {
  readonly status: 200 | 304 | 405;
  readonly headers: Readonly<Record<string, string>>;
  /** Absent for 304, 405 and HEAD. */
  readonly body: Buffer | undefined;
}

/**
 * The answer to a request for a docs path, or `undefined` when the path is none of them. Given the
 * request's `Accept-Encoding`, the answer may wait (once per asset and coding) for the compressed
 * bytes; without it, it is always immediate and uncompressed.
 */
export interface AnswerDocs {
  (method: string, path: string, ifNoneMatch: string | undefined): DocsAnswer | undefined;
  (method: string, path: string, ifNoneMatch: string | undefined, acceptEncoding: string | undefined): DocsAnswer | Promise<DocsAnswer> | undefined;
}

export const DOCS_METHODS = 'GET, HEAD';
const NOT_ALLOWED: DocsAnswer = Object.freeze({ status: 405, headers: Object.freeze({ allow: DOCS_METHODS }), body: undefined });

const COMPRESS: Record<Coding, (body: Buffer) => Promise<Buffer>> = {
  // Quality 11 (the best): about 1.3 s of one core for Redoc's bundle, spent once, in the thread pool.
  br: (body) => promisify(brotliCompress)(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  gzip: (body) => promisify(gzip)(body, { level: 9 }),
};

function makeAsset(body: Buffer, type: string, cacheControl: string, csp?: string): Asset {
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  const identity: Representation = { body, etag: `"${hash}"` };
  const made = new Map<Coding, Representation | Promise<Representation>>();
  const encode = (coding: Coding): Promise<Representation> =>
    COMPRESS[coding](body)
      // Kept only when smaller; a failure to compress leaves the asset uncompressed, never unanswered.
      .then((encoded): Representation => (encoded.length < body.length ? { body: encoded, etag: `"${hash}-${coding}"`, coding } : identity))
      .catch(() => identity)
      .then((representation) => {
        made.set(coding, representation);
        return representation;
      });
  return {
    identity,
    type,
    cacheControl,
    ...(csp === undefined ? {} : { csp }),
    encoded(coding) {
      let representation = made.get(coding);
      if (representation === undefined) made.set(coding, (representation = encode(coding)));
      return representation;
    },
  };
}

/** `If-None-Match` names `etag` (or is `*`), compared weakly as RFC 9110 §13.1.2 asks. */
function hasCurrent(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch === etag) return true;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || (trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed) === etag;
  });
}

/**
 * The gateway's documentation for API consumers, none of it behind a key: the effective API
 * document (JSON), the reference page, and the renderer's bundle, read once from node_modules.
 * GET and HEAD (any other method: 405); `If-None-Match` answers 304; `Accept-Encoding` gets `br`
 * or `gzip`, each compressed once. The pipeline writes the answer.
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
    once(() => makeAsset(Buffer.from(JSON.stringify(options.document, null, 2)), 'application/json', 'public, max-age=300')),
  );
  assets.set(
    REFERENCE_PAGE_PATH,
    once(() =>
      makeAsset(
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
    once(() => makeAsset(readFileSync(bundleFile), 'text/javascript; charset=utf-8', 'public, max-age=86400')),
  );

  function answer(asset: Asset, representation: Representation, method: string, ifNoneMatch: string | undefined): DocsAnswer {
    const { body, etag, coding } = representation;
    const headers: Record<string, string> = { etag, 'cache-control': asset.cacheControl, vary: 'Accept-Encoding', 'x-content-type-options': 'nosniff' };
    if (asset.csp !== undefined) headers['content-security-policy'] = asset.csp;
    if (hasCurrent(ifNoneMatch, etag)) return { status: 304, headers, body: undefined };
    headers['content-type'] = asset.type;
    if (coding !== undefined) headers['content-encoding'] = coding;
    headers['content-length'] = String(body.length);
    return { status: 200, headers, body: method === 'HEAD' ? undefined : body };
  }

  return function answerDocs(method: string, path: string, ifNoneMatch: string | undefined, acceptEncoding?: string) {
    const make = assets.get(path);
    if (make === undefined) return undefined;
    if (method !== 'GET' && method !== 'HEAD') return NOT_ALLOWED;
    const asset = make();
    const coding = preferredCoding(acceptEncoding);
    const representation = coding === undefined ? asset.identity : asset.encoded(coding);
    if (representation instanceof Promise) return representation.then((ready) => answer(asset, ready, method, ifNoneMatch));
    return answer(asset, representation, method, ifNoneMatch);
  } as AnswerDocs;
}
