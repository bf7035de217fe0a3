export { buildOpenApiDocument, GET_PET_DEPRECATED_AT, GET_PET_SUCCESSOR, GET_PET_SUNSET } from './build-document.js';
export { OPENAPI_FILE, serializeDocument } from './document-file.js';
