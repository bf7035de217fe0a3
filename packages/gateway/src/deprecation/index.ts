export { deprecationHeaders, isPastSunset } from './deprecation-headers.js';
export { DEPRECATION_NOTES_PATH, deprecationNotes } from './deprecation-notes.js';
