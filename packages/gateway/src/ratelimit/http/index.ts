/** A decision in HTTP's words: the rate-limit headers, `Retry-After`, the windows a refusal names. */
export { exhaustedWindows, rateLimitHeaders, retryAfterSeconds } from './headers.js';
