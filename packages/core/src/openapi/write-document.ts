import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from './build-document.js';
import { OPENAPI_FILE, serializeDocument } from './document-file.js';

// `npm run openapi`: regenerates the checked-in document after a schema change.
writeFileSync(OPENAPI_FILE, serializeDocument(buildOpenApiDocument()));
process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
