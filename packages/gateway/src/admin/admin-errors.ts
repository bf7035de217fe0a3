/**
 * Every error the admin API answers with, as the gateway's own table (`errors.ts`) is made: a
 * stable snake_case code, its HTTP status and the default message. Kept apart from the gateway's:
 * an API client never meets these (the client package types exactly the gateway's codes), and
 * an operator's tools need not know the API's. Codes the two share keep the same meaning. The
 * table of docs/operating.md is this table; `admin-errors.test.ts` walks it.
 */
export const ADMIN_ERRORS = {
  invalid_parameter: { status: 400, message: 'A parameter of the request is not valid.' },
  unauthorized: { status: 401, message: 'An admin token is required: Authorization: Bearer <admin token>.' },
  not_found: { status: 404, message: 'No admin endpoint at this path.' },
  account_not_found: { status: 404, message: 'No account of that name was seen today.' },
  key_not_found: { status: 404, message: 'No key of that id was seen by this gateway.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed on this path.' },
  limits_off: { status: 409, message: 'Rate limits are off (RATE_LIMITS=off): this gateway keeps no accounts to read or change.' },
  revocations_off: { status: 409, message: 'This gateway has no deny-list file to write a revocation to.' },
  misdirected_request: {
    status: 421,
    message: 'This admin listener does not answer to that host name: only to an address, localhost, METRICS_HOST and the names of ADMIN_HOSTS.',
  },
  payload_too_large: { status: 413, message: 'The request body is larger than the limit.' },
  unsupported_media_type: { status: 415, message: 'The request body must be JSON (content-type: application/json).' },
  anonymous_rate_limited: { status: 429, message: 'Too many requests without a valid admin token from this address: retry after the time in Retry-After.' },
  internal_error: { status: 500, message: 'An unexpected error occurred in the admin API.' },
  limits_unavailable: { status: 503, message: 'The state of the limits cannot be read right now; retry shortly.' },
  revocation_failed: { status: 503, message: 'The key could not be revoked everywhere; retry shortly.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type AdminErrorCode = keyof typeof ADMIN_ERRORS;

/** An admin error as a value: thrown by a handler, answered with its Error body by the admin API. */
export class AdminError extends Error {
  readonly code: AdminErrorCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  constructor(code: AdminErrorCode, message?: string, headers: Readonly<Record<string, string>> = {}) {
    super(message ?? ADMIN_ERRORS[code].message);
    this.name = 'AdminError';
    this.code = code;
    this.status = ADMIN_ERRORS[code].status;
    this.headers = headers;
  }

  /** The Error body: `{code, message, status}`. */
  body(): { readonly code: AdminErrorCode; readonly message: string; readonly status: number } {
    return { code: this.code, message: this.message, status: this.status };
  }
}
