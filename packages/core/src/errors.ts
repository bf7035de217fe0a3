/**
 * Every error the core answers with, in one table: a stable snake_case code, its HTTP status and
 * the default message. The error table of docs/core.md is this table; `errors.test.ts` walks it.
 */
export const ERRORS = {
  bad_request: { status: 400, message: 'The request is not valid HTTP.' },
  invalid_query: { status: 400, message: 'The query string is not valid.' },
  invalid_cursor: { status: 400, message: 'The cursor is not one this service issued.' },
  invalid_pet_id: { status: 400, message: 'The pet id must be an int64 integer.' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  invalid_body: { status: 400, message: 'The request body does not match NewPet.' },
  invalid_idempotency_key: {
    status: 400,
    message: 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
  },
  not_found: { status: 404, message: 'No resource at this path.' },
  pet_not_found: { status: 404, message: 'No pet with this id.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed on this path.' },
  request_timeout: { status: 408, message: 'The request took too long to arrive.' },
  payload_too_large: { status: 413, message: 'The request body is larger than the limit.' },
  unsupported_media_type: { status: 415, message: 'The request body must be application/json.' },
  headers_too_large: { status: 431, message: 'The request headers are too large.' },
  idempotency_key_reused: {
    status: 422,
    message: 'This Idempotency-Key was already used with a different request body.',
  },
  internal_error: { status: 500, message: 'An unexpected error occurred.' },
  not_implemented: { status: 501, message: 'This operation is not available in this version.' },
  store_unavailable: { status: 503, message: 'The pet store is unavailable; retry later.' },
  not_ready: { status: 503, message: 'The service is not ready.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** The wire shape of every error: `status` always equals the HTTP status. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
}

/** An expected failure of a request, carried to the one place that writes responses. */
export class HttpError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message?: string, headers: Record<string, string> = {}) {
    super(message ?? ERRORS[code].message);
    this.name = 'HttpError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.headers = headers;
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, status: this.status };
  }
}

/** Builds the Error body for `code`, with an optional more specific message. */
export function errorBody(code: ErrorCode, message?: string): ErrorBody {
  return { code, message: message ?? ERRORS[code].message, status: ERRORS[code].status };
}
