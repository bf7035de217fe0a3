import { refuse, type Answer } from './answer.js';

/**
 * The answers of a key that cannot pass, in one place: the step that checks keys, the rate limit
 * (which may find the key revoked in its own round trip) and `GET /v1/usage` all answer with these.
 */

/** 503: the key server or the deny-list cannot be asked; the key may well be valid. */
export const AUTH_UNAVAILABLE: Answer = refuse('auth_unavailable', undefined, { 'retry-after': '1' });

const MISSING: Answer = refuse('unauthorized', undefined, { 'www-authenticate': 'Bearer' });
const INVALID_TOKEN = { 'www-authenticate': 'Bearer error="invalid_token"' };
const INVALID: Answer = refuse('unauthorized', undefined, INVALID_TOKEN);

/**
 * 401, with `error="invalid_token"` when a token was sent (RFC 6750, section 3.1), and `message`
 * instead of the generic one when the refusal has more to say (a key's sub no header can carry).
 */
export const unauthorized = (tokenSent: boolean, message?: string): Answer => {
  if (message !== undefined) return refuse('unauthorized', message, INVALID_TOKEN);
  return tokenSent ? INVALID : MISSING;
};
