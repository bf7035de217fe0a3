/** Where the reference page and its renderer are served. */
export const REFERENCE_PAGE_PATH = '/docs';
export const RENDERER_PATH = '/docs/redoc.standalone.js';

/**
 * What the page may load: its own script and the document, nothing from elsewhere. Redoc writes
 * its styles inline (styled-components) and runs its search in a worker made from a blob.
 */
export const REFERENCE_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface ReferencePageOptions {
  /** The effective document's URL: `/v1/openapi.json`. */
  readonly documentUrl: string;
  /** The deprecation notes: `/docs/deprecations`, or DEPRECATION_DOC_URL. */
  readonly deprecationNotesUrl: string;
  readonly title: string;
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string);

/**
 * The API reference page: Redoc renders the effective document in the browser, from the bundle
 * the gateway serves out of node_modules (never a CDN). A banner above it links the deprecation
 * notes and the document itself.
 */
export function referencePage(options: ReferencePageOptions): string {
  const documentUrl = escapeHtml(options.documentUrl);
  const notesUrl = escapeHtml(options.deprecationNotesUrl);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<style>
  body { margin: 0; }
  .gateway-banner { margin: 0; padding: 10px 20px; font: 14px/1.4 system-ui, sans-serif; background: #fff8e1; border-bottom: 1px solid #f0d58a; }
</style>
</head>
<body>
<p class="gateway-banner">Deprecated operations, when they go and what replaces them: <a id="deprecation-notes" href="${notesUrl}">deprecation notes</a>. The document this page shows: <a id="openapi-document" href="${documentUrl}">${documentUrl}</a>.</p>
<redoc spec-url="${documentUrl}" hide-download-button="false" native-scrollbars="true"></redoc>
<script src="${RENDERER_PATH}"></script>
</body>
</html>
`;
}
