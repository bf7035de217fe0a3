export { buildEffectiveDocument, DocumentConflictError, DOCUMENT_PATH, USAGE_PATH, type EffectiveDocumentOptions } from './effective-document.js';
