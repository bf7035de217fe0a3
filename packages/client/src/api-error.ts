/** The codes the gateway and the pets core answer with, and the client's own `unexpected_response`. */
export const KNOWN_ERROR_CODES = [
  // The gateway's (docs/gateway.md, "Gateway errors").
  'bad_request',
  'unauthorized',
  'not_found',
  'origin_not_allowed',
  'method_not_allowed',
  'request_timeout',
  'gone',
  'payload_too_large',
  'rate_limited',
  'key_banned',
  'quota_exhausted',
  'operation_limited',
  'anonymous_rate_limited',
  'headers_too_large',
  'internal_error',
  'bad_gateway',
  'rate_limit_unavailable',
  'auth_unavailable',
  'not_ready',
  'upstream_timeout',
  // The pets core's that the gateway's do not name.
  'invalid_query',
  'invalid_cursor',
  'invalid_pet_id',
  'invalid_json',
  'invalid_body',
  'invalid_idempotency_key',
  'pet_not_found',
  'unsupported_media_type',
  'idempotency_key_reused',
  'not_implemented',
  'store_unavailable',
  'unexpected_response',
] as const;
export type KnownErrorCode = (typeof KNOWN_ERROR_CODES)[number];
/** A known code, which editors complete, or any other a backend of your own may send. */
export type ErrorCode = KnownErrorCode | (string & {});

/**
 * A failed call: the service answered with an error status (or never answered in a usable way).
 * `code` is the stable snake_case code of the Error body (`rate_limited`, `quota_exhausted`,
 * `operation_limited`, `key_banned`, `pet_not_found`…); match on it, not on `message`.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: ErrorCode;
  /** The answer's `Retry-After`, in seconds, when it had one. */
  readonly retryAfterSeconds: number | undefined;
  /** The answer's `X-Request-Id`: quote it when reporting a problem. */
  readonly requestId: string | undefined;

  constructor(fields: { status: number; code: ErrorCode; message: string; retryAfterSeconds?: number | undefined; requestId?: string | undefined }) {
    super(fields.message);
    this.status = fields.status;
    this.code = fields.code;
    this.retryAfterSeconds = fields.retryAfterSeconds;
    this.requestId = fields.requestId;
  }
}

/**
 * The ApiError of an error answer, its body read. A body that is not the Error shape (a proxy's
 * HTML page, say) still gives an error: code `unexpected_response`, the status kept.
 */
export async function apiErrorOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  let code = 'unexpected_response';
  let message = `HTTP ${response.status}${text === '' ? '' : `: ${text.slice(0, 200)}`}`;
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown; detail?: unknown };
    if (typeof body.code === 'string') code = body.code;
    if (typeof body.message === 'string') message = body.message;
    else if (typeof body.detail === 'string') message = body.detail;
  } catch {
    // Not JSON: the status and the start of the text say what there is to say.
  }
  return new ApiError({
    status: response.status,
    code,
    message,
    retryAfterSeconds: retryAfterSeconds(response.headers),
    requestId: response.headers.get('x-request-id') ?? undefined,
  });
}

/** `Retry-After` in seconds: delay-seconds only (the gateway never sends an HTTP-date). */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}
