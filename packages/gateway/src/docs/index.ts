export { createDocs, DOCS_METHODS, type AnswerDocs, type DocsAnswer, type DocsOptions } from './create-docs.js';
export { REFERENCE_PAGE_PATH, RENDERER_PATH } from './reference-page.js';
