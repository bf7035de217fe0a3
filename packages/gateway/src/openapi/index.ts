export { buildEffectiveDocument, DocumentConflictError, DOCUMENT_PATH, USAGE_PATH, type EffectiveDocumentOptions } from './effective-document.js';
export { withPublicBasePath } from './public-base-path.js';
