/**
 * Every error the gateway itself answers with: a stable snake_case code, its HTTP status and the
 * default message. Errors the upstream answers with pass through unchanged. The gateway error
 * table of docs/gateway.md is this table; `errors.test.ts` walks it.
 */
export const ERRORS = {
  bad_request: { status: 400, message: 'The request is not valid HTTP.' },
  unauthorized: { status: 401, message: 'A valid API key is required: Authorization: Bearer <API key>.' },
  not_found: { status: 404, message: 'No operation at this path.' },
  origin_not_allowed: { status: 403, message: 'Browsers on this origin may not call this API.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed on this path.' },
  request_timeout: { status: 408, message: 'The request took too long to arrive.' },
  gone: { status: 410, message: 'This operation has been removed.' },
  payload_too_large: { status: 413, message: 'The request body is larger than the limit.' },
  rate_limited: { status: 429, message: 'Rate limit exceeded: retry after the time in Retry-After.' },
  key_banned: { status: 429, message: 'This API key is temporarily banned for sending requests while rate limited.' },
  quota_exhausted: { status: 429, message: "The account's monthly quota is used up: it renews when the month ends (Retry-After)." },
  operation_limited: { status: 429, message: 'This operation is at its ceiling for all callers: retry after the time in Retry-After.' },
  anonymous_rate_limited: {
    status: 429,
    message:
      "Too many requests from this address without a valid API key or to no operation: this is the address's budget for such requests, not an API key's limit. Check the path and the key; retry after the time in Retry-After.",
  },
  headers_too_large: { status: 431, message: 'The request headers are too large.' },
  internal_error: { status: 500, message: 'An unexpected error occurred in the gateway.' },
  bad_gateway: { status: 502, message: 'The upstream service could not be reached or answered invalidly.' },
  rate_limit_unavailable: { status: 503, message: 'Rate limits cannot be checked right now; retry shortly.' },
  auth_unavailable: { status: 503, message: 'API keys cannot be checked right now; retry shortly.' },
  not_ready: { status: 503, message: 'The gateway is not ready.' },
  upstream_timeout: { status: 504, message: 'The upstream service did not answer in time.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

export interface ErrorBody {
  readonly code: ErrorCode;
  readonly message: string;
  readonly status: number;
}

/** The Error body for `code`, with an optional more specific message. */
export function errorBody(code: ErrorCode, message?: string): ErrorBody {
  return { code, message: message ?? ERRORS[code].message, status: ERRORS[code].status };
}
